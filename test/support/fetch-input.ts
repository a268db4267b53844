/** The URL a fetch() call was given, whichever form it came in (a Request's String() is "[object Request]"). */
export const urlOf = (input: string | URL | Request): string =>
  typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
