export * from "./material";
export * from "./subspace";
export * from "./contacts";
export * from "./body";
export * from "./linalg";
export { MAX_GRABS } from "./grabs";
export { FoldRelease, FOLD_FIRST_JUDGED, FOLD_JUDGED_EVERY, FOLD_SPEED } from "./fold-release";
