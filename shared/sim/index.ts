export * from "./material";
export * from "./subspace";
export * from "./contacts";
export * from "./body";
export * from "./linalg";
export { GrabSet, MAX_GRABS, MAX_GRAB_POINTS } from "./grabs";
