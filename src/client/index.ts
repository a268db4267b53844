// Public entry point of the reference client.
//
//   createA2AClient(urlOrCard, options) → A2AClient   card discovery, interface selection
//   A2AClient                                          the 11 operations in 1.0 types, streams, waitForTask
//   A2AError / A2ATransportError / A2ACardError        protocol error / no A2A answer / unusable card
//   bearer(), apiKey(), fromCredentials()              auth header providers
//   textMessage(text, ids)                             a user message to send
//   applyStreamEvent(task, event)                      the task after a stream event (artifact chunks joined)
export { A2AClient, createA2AClient, textMessage, TERMINAL_STATES, INTERRUPTED_STATES } from "./client.js";
export type { CallOptions, ClientOptions, StreamOptions } from "./client.js";
export { A2AError, A2ACardError, A2ATransportError } from "./errors.js";
export type { A2AErrorName, CardErrorKind, TransportErrorKind } from "./errors.js";
export { apiKey, bearer, fromCredentials, describeSecurity } from "./auth.js";
export type { AuthMaterial, AuthProvider, Credentials } from "./auth.js";
export { CardCache, cardUrls, fetchAgentCard, selectInterface, WELL_KNOWN_CARD_PATH } from "./card.js";
export type { InterfacePolicy } from "./card.js";
export type { ResubscribePolicy } from "./stream.js";
export { applyStreamEvent, artifactText } from "./accumulate.js";
export type { WaitOptions } from "./wait.js";
export type { Binding, ClientWire, Operation, ProtocolVersion, Target } from "./wire.js";
