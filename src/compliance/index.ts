// a2a-toolkit/compliance: the suite as a library. runSuite judges an agent at a URL and returns the
// report the `test` command prints; the formatters turn it into the console, JSON, JUnit or HTML form.
export { runSuite, type SuiteOptions } from "./suite.js";
export { consoleReport, jsonReport, junitReport, summaryLine, type Report, type Summary } from "./report.js";
export { htmlReport } from "./html-report.js";
export type { CaseResult, CaseStatus, StepResult, SelectOptions, RunOptions } from "./runner.js";
export { loadCases, CASES_DIR, CaseLoadError, type Case, type Level, type Version } from "./cases.js";
