export * from "./protocol";
export * from "./validate";
export * from "./snapshot";
export * from "./state";
export * from "./network-conditions";
export * from "./room-client";
export * from "./mesh-upload";
export * from "./client-characters";
