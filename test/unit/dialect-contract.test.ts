// The 0.3 dialects are joined to the operations through one typed contract (src/versioning/dialect.ts).
// The @ts-expect-error lines are the test that matters: `make typecheck` (tsc over test/) fails if a
// dialect missing a translator, or with a translator of the wrong 1.0 type, ever compiles.
import { describe, expect, it } from "vitest";
import * as rest0_3 from "../../src/versioning/rest0_3.js";
import * as rpc0_3 from "../../src/versioning/rpc0_3.js";
import type { Dialect0_3, RestWire0_3, RpcWire0_3, Wire0_3 } from "../../src/versioning/dialect.js";

const { upgradeTask: _dropped, ...withoutUpgradeTask } = rpc0_3;
// @ts-expect-error a dialect without upgradeTask does not satisfy the contract
const missing: Dialect0_3<RpcWire0_3> = withoutUpgradeTask;
// @ts-expect-error a translator that yields a Message where a Task is due does not either
const wrongType: Dialect0_3<RpcWire0_3> = { ...rpc0_3, upgradeTask: rpc0_3.upgradeMessage };
// @ts-expect-error the JSON-RPC dialect is not the HTTP+JSON one (its wire types differ)
const crossed: Dialect0_3<RestWire0_3> = rpc0_3;

// Every member of the contract, once (a Record over its keys, so a new member must be listed here).
const MEMBERS: Record<keyof Dialect0_3<Wire0_3>, true> = {
  upgradeSendMessageRequest: true,
  downgradeSendMessageRequest: true,
  upgradeSendMessageResponse: true,
  downgradeSendMessageResponse: true,
  upgradeStreamResponse: true,
  downgradeStreamResponse: true,
  upgradeGetTaskRequest: true,
  downgradeGetTaskRequest: true,
  upgradeTask: true,
  downgradeTask: true,
  upgradeCancelTaskRequest: true,
  downgradeCancelTaskRequest: true,
  upgradeSubscribeToTaskRequest: true,
  downgradeSubscribeToTaskRequest: true,
  upgradeCreatePushConfigParams: true,
  downgradeCreatePushConfigParams: true,
  upgradeCreatePushConfigResult: true,
  downgradeCreatePushConfigResult: true,
  upgradeGetPushConfigParams: true,
  downgradeGetPushConfigParams: true,
  upgradeGetPushConfigResult: true,
  downgradeGetPushConfigResult: true,
  upgradeListPushConfigParams: true,
  downgradeListPushConfigParams: true,
  upgradeListPushConfigResult: true,
  downgradeListPushConfigResult: true,
  upgradeDeletePushConfigParams: true,
  downgradeDeletePushConfigParams: true,
  upgradeDeletePushConfigResult: true,
  downgradeDeletePushConfigResult: true,
  upgradeAgentCard: true,
  downgradeAgentCard: true,
};

describe("0.3 dialect contract", () => {
  it("both dialect modules provide every translator of the contract as a function", () => {
    for (const [name, mod] of [
      ["rpc0_3", rpc0_3],
      ["rest0_3", rest0_3],
    ] as const)
      for (const member of Object.keys(MEMBERS))
        expect(typeof (mod as Record<string, unknown>)[member], `${name}.${member}`).toBe("function");
  });

  it("the contract rejects incomplete or mistyped dialects (checked by tsc; the values exist at run time)", () => {
    expect(typeof missing.upgradeTask).toBe("undefined");
    expect(wrongType.upgradeTask).toBe(rpc0_3.upgradeMessage);
    expect(crossed).toBe(rpc0_3);
  });
});
