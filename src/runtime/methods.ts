// Shapes of the generated method tables (generated/<version>/methods.ts).
export type HttpVerb = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface HttpBinding {
  verb: HttpVerb;
  /** Path template exactly as annotated, e.g. "/tasks/{id=*}:cancel". */
  template: string;
  /** "*" (whole request), a field name, or "" (no body). */
  body: string;
  /** Template variables in order, e.g. ["tenant", "id"]. */
  pathParams: string[];
  /** Anchored regular expression source with one named group per variable. */
  pattern: string;
}

export interface MethodInfo {
  /** The 1.0 operation this method is (for 0.3 methods: what it maps to). */
  operation: string;
  /** gRPC rpc name in this version's proto. */
  rpc: string;
  /** Full gRPC method path, "/<package>.<Service>/<rpc>" (gRPC over HTTP/2 :path). */
  grpcPath: string;
  jsonRpcMethod: string;
  streaming: boolean;
  /** Proto request/response message names (package-relative). */
  requestType: string;
  responseType: string;
  /** 0.3 only: JSON Schema definitions of the JSON-RPC request, params and success response. */
  jsonRpc?: { request: string; params: string | null; result: string };
  http: HttpBinding[];
}
