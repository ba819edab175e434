export * from "./fields";
export * from "./baseline";
export * from "./baked-body";
export * from "./bake";
export * from "./onnx-provider";
export * from "./quality";
export * from "./orthonormal";
export * from "./render-influences";
