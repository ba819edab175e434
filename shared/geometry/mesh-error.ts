/** Thrown for every unusable mesh; the message says what is wrong and, where one applies, the limit. */
export class MeshError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MeshError";
  }
}
