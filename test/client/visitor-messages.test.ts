// The sentences visitors read, from what the server and the browser say: every reason the room gives for a
// refused or ended grab, its notices, the connection's errors and upload refusals come out as plain sentences with
// no message types, ids, codes or parser errors in them.

import { expect, it } from "vitest";
import { connectionSentence, grabEndedSentence, joinErrorSentence, noticeSentence, pageNoticeSentence, readableName, uploadErrorSentence } from "../../client/src/hud/visitor-messages";
import { LIMITS, type NoticeMessage, type PliantRoomClient } from "../../shared/net";
import { SILENT_LET_GO_REASON } from "../../server/room/playground-room";

const DEVELOPER = /\bcode \d{4}\b|\badded-[0-9a-f]{6,}|Unexpected token|\bgrab-(move|start|end)\b|\bundefined\b|\bnull\b|\bNaN\b|\w*Error:|\[object|\bHTTP \d{3}\b|Failed to fetch|\bJSON\b|\bbytes\b/;
/** A room with the layout's dough ball and an upload called "beetle". */
const client = { room: { state: { bodies: new Map([["dough-ball", { name: "dough-ball" }], ["added-868a5ec7", { name: "beetle" }]]), characters: new Map([["fox", {}]]) } } } as unknown as PliantRoomClient;

it("names: upload ids and dashed ids become what people call the body", () => {
  expect(pageNoticeSentence(client, "Could not grab added-868a5ec7: the point is not on the body's surface")).toBe("That missed the beetle: press right on it.");
  expect(readableName("dough-ball")).toBe("dough ball");
  expect(readableName("added-1234abcd")).toBe("added mesh");
  expect(noticeSentence(client, { kind: "material", message: "Ann made the added-868a5ec7 rubber" })).toBe("Ann made the beetle rubber.");
});

it("grabs the server ended or refused say what happened to which body", () => {
  const ended = (reason: string, body = "dough-ball") => grabEndedSentence(client, { hand: "pointer", body, ok: false, reason });
  expect(ended("the body slipped out of your hand")).toBe("The dough ball slipped out of your hand.");
  expect(ended("the fox slipped out of your hand", "fox")).toBe("The fox slipped out of your hand.");
  expect(ended(SILENT_LET_GO_REASON)).toBe(`The dough ball was let go: this page went quiet for more than ${LIMITS.silentHoldSeconds} s.`);
  expect(ended("the body left the room and was put back")).toBe("The dough ball fell off the table and was put back.");
  expect(ended("the beetle left the room", "added-868a5ec7")).toBe("The beetle left the table to make room for a new upload.");
  expect(ended("an admin turned spectator grabs off")).toMatch(/^An organiser turned off grabbing/);
  expect(ended("something the page has never heard of")).toBe("You let go of the dough ball.");
});

it("the room's notices: dropped messages stay in the console, fair refusals and news are plain sentences", () => {
  const notice = (kind: NoticeMessage["kind"], message: string) => noticeSentence(client, { kind, message });
  for (const dropped of ["grab-move: no grab held by pointer", "unknown message type \"x\"", "over 60 messages a second", "grab-move: grab target is more than 1.5 m from the body"]) {
    expect(notice("rejected", dropped)).toBeNull();
  }
  expect(notice("rejected", "reset-table: spectators cannot reset the table in this room")).toBe("Join as a player to reset the table.");
  expect(notice("rejected", "the table was just reset; try again in 7 s")).toBe("The table was just reset: try again in 7 s.");
  expect(notice("rejected", "set-material: the added-868a5ec7 changed material 1.2 s ago; once every 3 s at most")).toBe("The material of the beetle changed a moment ago: wait a few seconds.");
  expect(notice("kicked", "kicked by an admin")).toMatch(/^An organiser removed you/);
  expect(notice("kicked", "kicked: 31 messages dropped in 10 s")).toMatch(/sent too much/);
  expect(notice("upload", "beetle could not be added: could not read glTF: glTF JSON is malformed: Unexpected token '\u0089', \"\u0089PNG\" is not valid JSON")).toBe("Beetle could not be added: the file could not be read as a 3D mesh.");
  expect(notice("upload", "Ann added beetle")).toBe("Ann added beetle.");
  expect(notice("reset", "nobody has played for a while: the table was reset")).toBe("Nobody has played for a while: the table was reset.");
});

it("the connection's troubles: close codes become what happened", () => {
  expect(connectionSentence("connection lost (code 4001): joining again")).toBe("The server restarted: joining again…");
  expect(connectionSentence("connection lost (code 4002): joining again")).toMatch(/ran into a problem/);
  expect(connectionSentence("connection lost (code 1006): joining again")).toBe("The connection dropped: joining again…");
  expect(connectionSentence("removed from the room by the server")).toMatch(/organiser removed you/);
  expect(connectionSentence("cannot join: seat reservation expired.")).toBe("The room took too long to answer. Trying again…");
  expect(connectionSentence("cannot join: TypeError: Failed to fetch")).toBe("The server cannot be reached. Trying again…");
  expect(connectionSentence(null)).toBeNull();
  expect(joinErrorSentence(new Error("the room is full (8 players); join as a spectator"))).toBe("The room is full (8 players). You can keep watching.");
});

it("uploads: every refusal and failure says why in a visitor's words", () => {
  const reasons = [
    "Content-Type must be one of model/gltf-binary, model/gltf+json, model/obj, model/stl; got \"\"",
    "the file is 22020096 bytes; the limit is 20971520", "the upload failed (HTTP 413)", "Failed to fetch",
    "at most 10 uploads a minute from one address", "the server is baking other uploads; try again in a few seconds",
    "the ticket is unknown, expired or already used: ask the room for a new one", "OBJ file has no faces (no 'f' lines with 3 or more vertices)",
    "mesh is flat (zero thickness along y), so it has no interior to sample; give it thickness", "SyntaxError: Unexpected token '<', \"<html>\" is not valid JSON",
    "\"notes.txt\" has no extension; supported mesh files are .obj, .gltf, .glb and .stl", "the room it was for has closed",
  ];
  for (const reason of reasons) {
    const text = uploadErrorSentence("beetle.obj", new Error(reason));
    expect(text, reason).toMatch(/^beetle\.obj was not added: \S/);
    expect(text, reason).not.toMatch(DEVELOPER);
  }
  expect(uploadErrorSentence("huge.obj", new Error("the upload failed (HTTP 413)"))).toBe("huge.obj was not added: the file is larger than 20 MB.");
});

it("a grab refused in a headset (no body named) is told plainly too", () => {
  expect(pageNoticeSentence(client, "grab refused: spectators cannot grab in this room")).toBe("Join as a player to grab the bodies.");
  expect(pageNoticeSentence(client, "grab refused: the point is not on the body's surface")).toBe("That missed the body: press right on it.");
});
