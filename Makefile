# The project's commands. `make run` and `make test` work on a fresh clone.
PORT ?= 8080
export UV_THREADPOOL_SIZE ?= 16

.PHONY: install build run test typecheck bench clean

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: node_modules/.installed

build: install
	npx tsc -p tsconfig.json

run: build
	./bin/vivace serve --port $(PORT)

typecheck: install
	npx tsc -p tsconfig.json --noEmit

test: typecheck
	npx mocha 'spec/**/*.spec.ts'

bench: build
	node --import tsx bench/run.ts

clean:
	rm -rf dist node_modules/.installed
