// The official @a2a-js/sdk 1.3.0 gRPC server (`@a2a-js/sdk/server/grpc` on @grpc/grpc-js, with
// the 0.3 service of `@a2a-js/sdk/compat/v0_3/server/grpc` beside it) around the echo executor of
// sdk-echo-target.ts, wired as its README shows; the card is served over HTTP (express) and lists
// GRPC at 1.0 and 0.3 on the gRPC port. Loopback, port 0.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import * as grpc from "@grpc/grpc-js";
import express from "express";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler } from "@a2a-js/sdk/server/express";
import { A2AService, UserBuilder, grpcService } from "@a2a-js/sdk/server/grpc";
import { LegacyA2AService, legacyGrpcService } from "@a2a-js/sdk/compat/v0_3/server/grpc";
import { EchoExecutor, echoCard, type EchoTarget } from "./sdk-echo-target.js";

export interface SdkGrpcTarget extends EchoTarget {
  /** host:port of the gRPC server. */
  grpcAddress: string;
}

export async function startSdkGrpcEchoTarget(): Promise<SdkGrpcTarget> {
  // The echo card, as the gRPC server's tests have always seen it: its own name, no skills.
  const card: AgentCard = { ...echoCard("official SDK 1.3.0 gRPC server"), name: "Echo Agent (gRPC)", skills: [] };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor("task"));
  const server = new grpc.Server();
  server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  server.addService(LegacyA2AService, legacyGrpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  const grpcAddress = `127.0.0.1:${port}`;
  card.supportedInterfaces.push(
    { url: grpcAddress, protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "" },
    { url: grpcAddress, protocolBinding: "GRPC", protocolVersion: "0.3", tenant: "" },
  );
  const app = express();
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }));
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url,
    grpcAddress,
    close: async () => {
      server.forceShutdown();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
