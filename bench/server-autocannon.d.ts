// The little of autocannon 9's API the server benchmarks use (the package ships no types).
declare module "autocannon" {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  export interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    pipelining?: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
