export * from "./material";
export * from "./subspace";
export * from "./contacts";
export * from "./body";
export * from "./linalg";
export { MAX_GRABS } from "./grabs";
export { foldJudgedAbove, FOLD_SPEED } from "./fold-release";
