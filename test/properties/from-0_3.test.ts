// Long run: arbitrary valid 0.3 values (D03-RPC and D03-PB) → 1.0 → 0.3.
import { runFamilies } from "./run.js";

runFamilies("round trips starting from 0.3", (name) => /^\S+ D03-(RPC|PB) → 1\.0 → /.test(name));
