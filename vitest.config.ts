import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One file at a time: the server tests run a 60 Hz room, its clients and sometimes child processes on a
    // two-core machine, and a room starved of CPU by a parallel file would measure the machine, not the netcode.
    fileParallelism: false,
  },
});
