# a2a-toolkit: every task a contributor or CI runs. `make` (or `make help`) lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help
BIN := node_modules/.bin
export A2A_SPEC_DIR ?= $(abspath ../shared/spec)
STAMP := node_modules/.install-stamp
# Written once the pinned spec files are in spec/upstream/: every target that reads them depends on
# it, so they are materialised once and again only when spec/pins.json or the install changes.
SPEC_STAMP := spec/upstream/.materialised
# Extra generator flags, e.g. CODEGEN_FLAGS="--pins /tmp/pins.json --out /tmp/gen --upstream /tmp/up" to try
# a spec update without touching spec/pins.json or generated/.
CODEGEN_FLAGS ?=

.PHONY: help setup spec generate check-generated update-spec lint format typecheck test test-properties test-variants test-limits test-fuzz test-durability test-replicas test-replicas-pause test-outage test-sockets test-unscripted test-security test-acts test-package test-browser test-inspector test-verdict-diff test-client-sdks test-memory build run ci clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-17s %s\n", $$1, $$2}'

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(STAMP)

setup: $(STAMP) ## install the npm dependencies (the proto compiler is the npm package @bufbuild/buf)

spec: $(STAMP) ## materialise the pinned spec files in spec/upstream/ (from A2A_SPEC_DIR, else downloaded), sha256-checked
	$(BIN)/tsx codegen/main.ts --materialise-only $(CODEGEN_FLAGS)
	$(if $(CODEGEN_FLAGS),,@touch $(SPEC_STAMP))

$(SPEC_STAMP): spec/pins.json $(STAMP)
	$(BIN)/tsx codegen/main.ts --materialise-only
	@touch $@

generate: $(STAMP) ## regenerate generated/ from the pinned spec and print what changed
	$(BIN)/tsx codegen/main.ts $(CODEGEN_FLAGS)

check-generated: $(STAMP) ## regenerate into a temp dir and fail if generated/ differs
	$(BIN)/tsx codegen/main.ts --check $(CODEGEN_FLAGS)

update-spec: $(STAMP) ## adopt a new upstream revision from $$A2A_SPEC_DIR: re-pin, regenerate, report changes
	$(BIN)/tsx codegen/main.ts --update-pins --spec-dir "$(A2A_SPEC_DIR)" $(CODEGEN_FLAGS)

lint: $(STAMP) ## eslint and prettier
	$(BIN)/eslint .
	$(BIN)/prettier --check .

format: $(STAMP) ## rewrite files with prettier
	$(BIN)/prettier --write .

typecheck: $(STAMP) ## tsc --noEmit over codegen, generated, src, test
	$(BIN)/tsc -p tsconfig.json

test: $(STAMP) $(SPEC_STAMP) ## run every test (writes reports/vitest.json too)
	@mkdir -p reports
	$(BIN)/vitest run --reporter=default --reporter=json --outputFile.json=reports/vitest.json

test-properties: $(STAMP) $(SPEC_STAMP) ## the long property-based translation tests (fixed seed, >=10,000 cases per family)
	$(BIN)/vitest run --config vitest.properties.config.ts

test-variants: $(STAMP) $(SPEC_STAMP) ## the suite through the rewriting proxy (every variant over every case it applies to, every fault in front of the official SDK server and ours) through the gateway on all four backends, every client case for the reference client, and the whole suite over the node:http adapter
	A2A_PROXY_VARIANTS=full $(BIN)/vitest run test/integration/compliance-proxy-variants.test.ts
	A2A_PROXY_FAULTS=full $(BIN)/vitest run test/integration/compliance-proxy-faults.test.ts test/integration/compliance-grpc-proxy-faults.test.ts test/integration/compliance-mutation.test.ts
	A2A_GATEWAY_FULL=1 A2A_CLIENT_FULL=1 A2A_SERVER_FULL=1 $(BIN)/vitest run test/integration/gateway-compliance.test.ts test/integration/compliance-client-reference.test.ts test/integration/compliance-reference-server.test.ts

test-security: $(STAMP) $(SPEC_STAMP) ## the security scenarios on all six pairs against the reference server: refused, isolated, and the faults they catch
	A2A_SECURITY_FULL=1 $(BIN)/vitest run test/integration/compliance-security.test.ts

test-acts: $(STAMP) $(SPEC_STAMP) ## the pinned ACTS corpus (adjudicated) against the embedded reference server on JSON-RPC, HTTP+JSON and gRPC at 1.0 and 0.3, and against the official SDK servers (1.3.0; 0.3.14 through translation); §13 reports in reports/acts/
	A2A_ACTS=1 $(BIN)/vitest run test/integration/acts-cli.test.ts test/integration/acts-sdk.test.ts
	node bin/a2a-toolkit.js test --only-acts --known-failing compliance/known-failing/reference-server-acts.json --report acts=reports/acts,json=reports/acts/all.json

test-limits: $(STAMP) $(SPEC_STAMP) ## the resource-limit tests at the issue's full size (200 big streams, 4,000 1 MiB echoes; minutes)
	A2A_LIMITS_FULL=1 $(BIN)/vitest run test/integration/server-memory-bound.test.ts test/integration/server-list-bound.test.ts

test-fuzz: $(STAMP) $(SPEC_STAMP) ## the long fuzz run of `serve`: 30,000 malformed and valid-ish requests (fixed seed; FUZZ_RUNS=n)
	A2A_FUZZ_RUNS=$${FUZZ_RUNS:-30000} $(BIN)/vitest run test/integration/server-fuzz.test.ts

test-durability: $(STAMP) $(SPEC_STAMP) ## kill -9 of `serve` mid-burst, six times: 500 mixed sends and 300 streams each; every task a client was told about survives
	A2A_CRASH_SENDS=500 A2A_CRASH_STREAMS=300 A2A_CRASH_RUNS=6 $(BIN)/vitest run test/integration/server-crash.test.ts
test-replicas: $(STAMP) $(SPEC_STAMP) ## two serve replicas on a throwaway PostgreSQL: the compliance suite through round-robin; 500 sends, one replica killed mid-flight
	A2A_REPLICAS_FULL=1 $(BIN)/vitest run test/integration/pg-replicas-full.test.ts

test-replicas-pause: $(STAMP) $(SPEC_STAMP) ## two serve replicas (--lease 3000) on a throwaway PostgreSQL, 10 runs of 200 sends, one paused past its lease: clients told only what the database holds
	A2A_REPLICAS_PAUSE=1 $(BIN)/vitest run test/integration/pg-replicas-pause.test.ts

test-outage: $(STAMP) $(SPEC_STAMP) ## serve on a throwaway PostgreSQL under load, the database stopped for 10 s: every answer retryable, nothing lost, recovery without restart
	A2A_OUTAGE=1 $(BIN)/vitest run test/integration/pg-outage.test.ts

test-sockets: $(STAMP) $(SPEC_STAMP) ## serve and gateway under ulimit -n 1024: 10,000 health checks, 10,000 silent connections, 3,000 HTTP/2 sessions from one address
	A2A_SOCKETS=1 $(BIN)/vitest run test/integration/sockets-probe.test.ts

test-browser: $(STAMP) $(SPEC_STAMP) ## the HTML report of a run against the official SDK server, opened in headless Chromium (apt-get install chromium); screenshots in reports/
	$(BIN)/vitest run --config vitest.browser.config.ts test/browser/html-report.test.ts

test-inspector: $(STAMP) $(SPEC_STAMP) ## `a2a-toolkit inspect` in headless Chromium against the reference server and the official SDK server: cards, losses, signatures, every interface, file and data parts, streams, input-required, polling, subscribe, cancel, wire log, a recording replayed by test --cases, the suite with a failure's exchange, inert markup, a click during 2,000 chunks; screenshots in reports/inspector/
	$(BIN)/vitest run --config vitest.browser.config.ts test/browser/inspector.test.ts

test-unscripted: $(STAMP) $(SPEC_STAMP) ## the suite against unscripted (LLM-like) agents on the official SDK server: free text, bare Message, 3 s per answer, never-ending (2 s bounds and default options), no contextId, Message/Task by turns, input-required first (about 8 min)
	A2A_UNSCRIPTED=1 $(BIN)/vitest run test/integration/compliance-unscripted.test.ts

build: $(STAMP) $(SPEC_STAMP) ## compile src/ and generated/ into dist/ (what the npm package runs; `npm pack` does it first); checks the ACTS corpus and LICENSE it carries
	node scripts/build.js

test-package: $(STAMP) $(SPEC_STAMP) ## npm pack, install the tarball into empty CommonJS and ESM projects: types, bin, README's agent served and tested, `test --acts` offline
	A2A_PACKAGE=1 $(BIN)/vitest run test/integration/package.test.ts

test-verdict-diff: $(STAMP) $(SPEC_STAMP) ## the cases scenarios replaced (from git: the last commit that wrote each; BASE=<commit> for one tree) and their projections run on the reference server, the official SDK servers and the reference server behind every variant and fault of the rewriting proxy, the client cases client scenarios replaced with the reference client and the official SDK clients: every verdict the same
	$(BIN)/tsx test/verdict-diff/run.ts $${BASE:+--base $$BASE}
	$(BIN)/tsx test/verdict-diff/client.ts $${BASE:+--base $$BASE}

test-client-sdks: $(STAMP) $(SPEC_STAMP) ## the official SDK clients (@a2a-js/sdk 1.3.0: every client case; 0.3.14: every 0.3 case) through the client suite: each non-pass listed with the client sentence it breaks; counts in reports/client-sdks.json
	A2A_CLIENT_SDKS=1 $(BIN)/vitest run test/integration/compliance-client-sdks.test.ts

test-memory: $(STAMP) $(SPEC_STAMP) ## serve with 100 non-reading SSE and 100 gRPC subscribers of stream 100000 beside 300 stream 20000 tasks (RSS under 3 GiB, GetTask within 1 s); gateway in front of a 400 MB answer (3-6 min)
	A2A_MEMORY=1 $(BIN)/vitest run test/integration/memory-probe.test.ts

run: $(STAMP) $(SPEC_STAMP) ## the main job: the compliance suite against the embedded reference server (or URL=<agent url>)
	node bin/a2a-toolkit.js test $(URL)

ci: lint typecheck check-generated test ## everything CI checks

clean: ## remove installed and materialised files
	rm -rf node_modules spec/upstream reports

.PHONY: oracle-corpus
oracle-corpus: $(STAMP) $(SPEC_STAMP) ## regenerate test/fixtures/protojson/expected.json with Google's runtime (apt-get install python3-protobuf)
	$(BIN)/tsx test/oracle/make-corpus.ts
