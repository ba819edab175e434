export * from "./fields";
export * from "./baseline";
export * from "./baked-body";
export * from "./bake";
