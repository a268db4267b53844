// Long run: arbitrary valid 1.0 values → 0.3 (both dialects) → 1.0.
import { runFamilies } from "./run.js";

runFamilies("round trips starting from 1.0", (name) => /^\S+ 1\.0 → /.test(name));
