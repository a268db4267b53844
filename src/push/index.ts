// Push notifications for A2A servers: config storage, the webhook SSRF guard and the sender.
export { MemoryPushConfigStore, prepareConfig, type PushConfigStore, type PushWireVersion, type StoredPushConfig } from "./config-store.js";
export { DEFAULT_PUSH_OPTIONS, PushDelivery, render, type PushDeliveryOptions, type PushOutcome } from "./delivery.js";
export {
  blockedRange,
  checkWebhookRegistration,
  checkWebhookUrl,
  defaultLookup,
  embeddedIPv4,
  NOT_ALLOWED,
  pinnedLookup,
  WebhookUrlError,
  type AddressLookup,
  type CheckedWebhook,
  type WebhookRejection,
  type WebhookUrlPolicy,
} from "./ssrf.js";
