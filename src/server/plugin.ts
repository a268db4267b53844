// Kept for imports from before the adapters: a2aPlugin is the fastify adapter (adapters/fastify.ts).
export { a2aPlugin, type A2APluginOptions } from "./adapters/fastify.js";
