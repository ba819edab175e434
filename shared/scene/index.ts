export * from "./obstacles";
export * from "./materials";
export * from "./layout";
export * from "./soft-entity";
export * from "./world";
export * from "./homecoming";
export * from "./landing-spot";
export * from "./table-alignment";
