// A minimal A2A agent for the reference server. Run it with
//
//   npx a2a-toolkit serve --agent examples/echo-agent.ts
//
// and talk to it with any A2A 1.0 or 0.3 client. "shout <text>" answers in capitals, "count <n>"
// streams n numbered chunks, "name" asks for your name first; anything else is echoed back.
import { firstText, inputRequired, reply, sleep, stream, v1_0, type Agent } from "../src/server/index.js";

const agent: Agent = {
  card: {
    name: "Echo agent",
    description: "Echoes text back; shows replies, streams and multi-turn tasks.",
    version: "1.0.0",
    capabilities: { streaming: true },
    skills: [
      {
        id: "echo",
        name: "Echo",
        description: "Echo, shout, count or greet by name",
        tags: ["example"],
        examples: ["shout hello", "count 5", "name"],
      },
    ],
  },

  handleMessage(message, context) {
    const text = firstText(message);
    // The second turn of "name": the task is waiting for input, and this message is the answer.
    if (context.task?.status?.state === v1_0.TaskState.INPUT_REQUIRED) return reply(`Hello, ${text}!`);

    const [word, ...rest] = text.trim().split(/\s+/);
    switch (word?.toLowerCase()) {
      case "shout":
        return reply(rest.join(" ").toUpperCase());
      case "count": {
        const n = Math.min(Number(rest[0]) || 3, 1000);
        // Long work goes in a stream: the task is WORKING until the generator returns, and a
        // CancelTask aborts context.signal (sleep rejects, the generator stops).
        return stream(
          (async function* () {
            for (let i = 1; i <= n; i++) {
              await sleep(100, context.signal);
              yield `${i} `;
            }
          })(),
        );
      }
      case "name":
        return inputRequired("What is your name?");
      default:
        return reply(text);
    }
  },
};

export default agent;
