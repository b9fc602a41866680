# Thin wrappers over the npm scripts, for people who type `make`.
.PHONY: install generate build lint test run bench seed

install:
	npm ci

generate:
	npm run generate

build:
	npm run build

lint:
	npm run lint

test:
	npm test

# Standalone: every service in one process on port 3000, embedded storage in ./data.
run:
	npm start

bench:
	npm run bench

seed:
	npm run seed -- $(ARGS)
