// Kept for imports from before the adapters: a2aPlugin is the fastify adapter (adapters/fastify.ts).
export { a2aPlugin, type A2APluginOptions, type A2AHandlerPluginOptions } from "./adapters/fastify.js";
