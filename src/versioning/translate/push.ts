// Push-notification config bodies and tenants, the same in both 0.3 dialects: the 0.3
// PushNotificationConfig (`authentication.schemes`, a list) ⇄ the 1.0 config (one `scheme`, L15).
import type * as v1_0 from "../../../generated/v1_0/index.js";
import type { LossLog } from "../loss.js";
import { compact, FIELDS, reportUnknown, str, untranslatable } from "./common.js";
import type { Fields } from "./fields.js";

/** The 0.3 PushNotificationConfig as both dialects spell it. */
export interface PushBody0_3 {
  id?: string;
  url?: string;
  token?: string;
  authentication?: { schemes?: string[]; credentials?: string };
}

/** L1: a 1.0 tenant has no 0.3 field. */
export function dropTenant(x: { tenant?: string }, path: string, log: LossLog): void {
  if (str(x.tenant)) log.add("L1", `${path}/tenant`, "tenant has no 0.3 field; 0.3 tenants are separate URLs");
}

/** `inSend`: the config inside SendMessage configuration, whose taskId 0.3 cannot carry. */
export function pushBodyDown(c: v1_0.TaskPushNotificationConfigJson, path: string, log: LossLog, inSend: boolean): PushBody0_3 {
  reportUnknown(c, FIELDS.pushConfig, path, log);
  dropTenant(c, path, log);
  if (inSend && str(c.taskId))
    log.add("L24", `${path}/taskId`, "taskId inside SendMessage configuration has no 0.3 field (1.0 says it should be empty)");
  let authentication: PushBody0_3["authentication"];
  if (c.authentication) {
    reportUnknown(c.authentication, FIELDS.authInfo, `${path}/authentication`, log);
    authentication = compact({ schemes: [c.authentication.scheme as string], credentials: c.authentication.credentials });
  }
  return compact({ id: c.id, url: c.url, token: c.token, authentication });
}

/** `fields`: the dialect's PushNotificationConfig and its authentication info. */
export function pushBodyUp(
  c: PushBody0_3,
  fields: { pushConfig: Fields; authInfo: Fields },
  path: string,
  log: LossLog,
): v1_0.TaskPushNotificationConfigJson {
  reportUnknown(c, fields.pushConfig, path, log);
  let authentication: v1_0.AuthenticationInfoJson | undefined;
  if (c.authentication) {
    const a = c.authentication;
    reportUnknown(a, fields.authInfo, `${path}/authentication`, log);
    const schemes = a.schemes ?? [];
    if (schemes.length === 0)
      throw untranslatable(`${path}/authentication/schemes`, "1.0 needs exactly one authentication scheme; none given", "L15");
    if (schemes.length > 1)
      log.add(
        "L15",
        `${path}/authentication/schemes`,
        `1.0 carries one scheme; kept "${schemes[0]}", dropped ${JSON.stringify(schemes.slice(1))}`,
      );
    authentication = compact({ scheme: schemes[0], credentials: a.credentials });
  }
  return compact({ id: c.id, url: c.url, token: c.token, authentication });
}
