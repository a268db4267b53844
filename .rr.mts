import { startRoundRobin } from "/work/wt-pg/test/support/round-robin.ts";
const rr = await startRoundRobin(process.argv.slice(2));
console.log(rr.url);
setInterval(() => {}, 1000);
