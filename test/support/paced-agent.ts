// An agent for the replica tests (`serve --agent test/support/paced-agent.ts`): `paced <n> <ms>`
// streams n artifact chunks ("part 1/n" …) with a status update before each, <ms> apart, so a
// subscriber on another replica can join mid-turn; a turn whose AbortSignal fires writes
// "aborted <taskId>" to stderr (the test sees that the cancel reached the agent). Anything else
// goes to the fixture agent.
import { createFixtureAgent } from "../../src/server/fixture/fixture-agent.js";
import { firstText, sleep, stream, type Agent, type StreamItem } from "../../src/server/index.js";

export default function pacedAgent(): Agent {
  const fixture = createFixtureAgent();
  return {
    ...fixture,
    handleMessage(msg, ctx) {
      ctx.signal.addEventListener("abort", () => process.stderr.write(`aborted ${ctx.taskId}\n`), { once: true });
      const [word, n, ms] = firstText(msg).trim().split(/\s+/);
      if (word !== "paced") return fixture.handleMessage(msg, ctx);
      const count = Math.min(50, Number(n) || 3);
      const gap = Math.min(2000, Number(ms) || 100);
      async function* items(): AsyncGenerator<StreamItem> {
        for (let i = 1; i <= count; i++) {
          await sleep(gap, ctx.signal);
          yield { status: `step ${i}/${count}` };
          yield { artifact: { artifactId: "paced", parts: [`part ${i}/${count}`] }, append: i > 1, lastChunk: i === count };
        }
      }
      return stream(items());
    },
  };
}
