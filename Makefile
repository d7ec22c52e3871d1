# The project's commands. `make run` and `make test` work on a fresh clone.
PORT ?= 8080
export UV_THREADPOOL_SIZE ?= 16

.PHONY: install build run test typecheck lint bench clean

# `npm ci` refuses a lock file without every platform's optional DuckDB binding, and the registry this
# project installs from serves @duckdb/node-bindings 1.5.6-r.1 for linux-x64 only; `npm install` then
# installs the same locked versions.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund || npm install --no-audit --no-fund
	@touch $@

install: node_modules/.installed

build: install
	npx tsc -p tsconfig.json

run: build
	./bin/vivace serve --port $(PORT)

# The web UI's browser code also under its own DOM tsconfig (lib/ui/browser/tsconfig.json).
typecheck: install
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p lib/ui/browser/tsconfig.json

# ESLint with eslint-plugin-regexp: no regular expression may backtrack super-linearly (eslint.config.js).
lint: install
	npx eslint lib spec bench

test: typecheck lint
	npx mocha 'spec/**/*.spec.ts'

# The compiled build, as `make run` serves it (children run the same build: bench/sibling-script.ts).
bench: build
	node dist/bench/run.js

clean:
	rm -rf dist node_modules/.installed
