// The generated ts-proto stubs; src/gen is written by `npm run generate` and never edited.
export * from "./gen/index.js";
