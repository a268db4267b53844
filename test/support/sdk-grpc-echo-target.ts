// The official @a2a-js/sdk 1.3.0 gRPC servers around the same echo executor as sdk-echo-target.ts:
// `grpcService` (1.0, lf.a2a.v1.A2AService) and `legacyGrpcService` (0.3, a2a.v1.A2AService) on one
// @grpc/grpc-js server (cleartext, loopback), the card on an express server whose only interfaces
// are the two GRPC ones (URL form host:port, the form gRPC clients take).
import * as grpc from "@grpc/grpc-js";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler } from "@a2a-js/sdk/server/express";
import { A2AService, UserBuilder, grpcService } from "@a2a-js/sdk/server/grpc";
import { LegacyA2AService, legacyGrpcService } from "@a2a-js/sdk/compat/v0_3/server/grpc";
import express from "express";
import { EchoExecutor, echoCard, listen, closer, type EchoOptions, type EchoTarget } from "./sdk-echo-target.js";

export interface GrpcEchoTarget extends EchoTarget {
  /** host:port of the gRPC server (both services). */
  grpcAddress: string;
}

/**
 * The SDK's gRPC services around `requestHandler`, as its README wires them: 1.0, and 0.3 unless
 * `only10`, on one @grpc/grpc-js server (cleartext, 127.0.0.1, port 0); the card (the handler's)
 * declares a GRPC interface per version at host:port.
 */
export async function serveSdkGrpc(
  requestHandler: DefaultRequestHandler,
  card: AgentCard,
  only10 = false,
): Promise<{ grpcAddress: string; close: () => void }> {
  const server = new grpc.Server();
  server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  if (!only10) server.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  const grpcAddress = `127.0.0.1:${port}`;
  for (const protocolVersion of only10 ? ["1.0"] : ["1.0", "0.3"])
    card.supportedInterfaces.push({ url: grpcAddress, protocolBinding: "GRPC", protocolVersion, tenant: "" });
  return { grpcAddress, close: () => server.forceShutdown() };
}

/** The SDK's gRPC services (1.0 and 0.3) around the echo executor; the card over HTTP declares both. */
export async function startSdkGrpcEchoTarget(options: EchoOptions = {}): Promise<GrpcEchoTarget> {
  const card = echoCard("official SDK 1.3.0 gRPC server");
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor(options.reply ?? "task"));
  const app = express();
  app.use(`/.well-known/agent-card.json`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }));
  const http = await listen(app);
  const grpcServer = await serveSdkGrpc(requestHandler, card);
  const closeHttp = closer(http.server);
  return {
    url: http.base,
    grpcAddress: grpcServer.grpcAddress,
    close: async () => {
      grpcServer.close();
      await closeHttp();
    },
  };
}
