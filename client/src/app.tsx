// The Pliant page: the live room at once (spectator), a title and control hints for the device in hand, a join
// form for a player seat, Enter VR / AR where the browser offers them, and the desktop cameras otherwise.
// /?kiosk is the stand's big screen: the automatic camera, the title, who plays, a QR code to join, no forms.
// /?debug shows the telemetry from the start.

import { Canvas, useThree } from "@react-three/fiber";
import { XR } from "@react-three/xr";
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import type { PliantRoomClient } from "../../shared/net";
import { BodySounds } from "./audio/body-sounds";
import { BakeLoader } from "./bake/bake-loader";
import { installDebugHooks, setDebugView } from "./debug-hooks";
import { useLoadingText, useNotices } from "./hud/hud";
import { detectDevice, type HintState } from "./hud/onboarding";
import { PageOverlay } from "./hud/page-overlay";
import { enterXrSentence, grabEndedSentence, joinErrorSentence, noticeSentence, pageNoticeSentence } from "./hud/visitor-messages";
import { KioskOverlay } from "./stand/kiosk-overlay";
import { WristMenu } from "./hud/wrist-menu";
import { MouseDrag } from "./interaction/mouse-drag";
import { XRInteraction } from "./interaction/xr-interaction";
import { SoftBodyMesh } from "./render/soft-body-mesh";
import { chooseRenderQuality } from "./render/render-quality";
import { CharacterMesh } from "./render/character-mesh";
import { FrameControl, FrameDriver } from "./room/frame-driver";
import { RoomConnection } from "./room/room-connection";
import { useGrabs, useLeavingBodies, usePlayers, useRoomFlags } from "./room/room-hooks";
import { UploadPlaceholders } from "./scene/upload-placeholders";
import { GrabMarkers } from "./scene/grab-markers";
import { Avatars } from "./scene/avatars";
import { Lights, Props, RoomStatics } from "./scene/room-scene";
import { SpectatorCamera, type CameraMode } from "./view/spectator-camera";
import type { AppXRStore, EmulatedDevice } from "./xr/xr-store";
import { TableAlignment, useTableAlignment } from "./xr/table-alignment";
import { PLAYGROUND } from "../../shared/scene";

export function App({ store, emulated }: { store: AppXRStore; emulated?: EmulatedDevice }) {
  const loader = useMemo(() => new BakeLoader(location.href.split(/[?#]/)[0]), []);
  const frames = useMemo(() => new FrameControl(), []);
  const connection = useMemo(() => new RoomConnection(location.origin, loader, new URLSearchParams(location.search).has("kiosk"), frames), [loader, frames]);
  // Once: it makes a throwaway GPU context (useMemo may run again).
  const [quality] = useState(() => chooseRenderQuality(location.search));
  useEffect(() => {
    connection.start();
    installDebugHooks({ connection, loader, store, emulated, quality, frames });
    return () => void connection.close();
  }, [connection, loader, store, emulated, quality, frames]);
  const state = useSyncExternalStore(connection.subscribe, () => connection.snapshot);
  const client = state.client;
  const players = usePlayers(client);
  const { spectatorGrabs } = useRoomFlags(client);
  const xrMode = useSyncExternalStore(store.subscribe, () => store.getState().mode);
  const query = useMemo(() => new URLSearchParams(location.search), []);
  const kiosk = query.has("kiosk"), device = useMemo(detectDevice, []);
  const [stats, setStats] = useState(() => query.has("debug"));
  const [hints, setHints] = useState<HintState>({ grabbed: false, looked: false });
  const onGrabbed = useCallback(() => setHints((h) => (h.grabbed ? h : { ...h, grabbed: true })), []);
  const onLook = useCallback(() => setHints((h) => (h.looked ? h : { ...h, looked: true })), []);
  const [cameraMode, setCameraMode] = useState<CameraMode>(() => (kiosk || query.get("camera") === "auto" ? "auto" : "orbit"));
  const [dragging, setDragging] = useState(false);
  const [joining, setJoining] = useState(false);
  const [joinError, setJoinError] = useState<string | null>(null);
  const { notices, push: notice } = useNotices();
  const [support, setSupport] = useState({ vr: false, ar: false });
  // Messages from the page's own parts (a refused grab): ids and codes become a visitor's words.
  const pageNotice = useCallback((message: string) => notice(pageNoticeSentence(connection.snapshot.client, message)), [connection, notice]);
  const loading = useLoadingText(loader, client);

  // What the server tells this page: resets, refusals, slips.
  useEffect(() => {
    if (!client) return;
    client.onNotice = (n) => notice(noticeSentence(client, n));
    client.onGrabEnded = (result) => notice(grabEndedSentence(client, result));
    return () => {
      client.onNotice = undefined;
      client.onGrabEnded = undefined;
    };
  }, [client, notice]);
  useEffect(() => {
    const xr = navigator.xr;
    if (!xr) return;
    void Promise.all([xr.isSessionSupported("immersive-vr").catch(() => false), xr.isSessionSupported("immersive-ar").catch(() => false)]).then(([vr, ar]) => setSupport({ vr, ar }));
  }, [emulated]);

  const join = useCallback(async (name: string, color: string) => {
    setJoining(true);
    setJoinError(null);
    try {
      await connection.joinAsPlayer(name, color);
    } catch (error) {
      setJoinError(joinErrorSentence(error));
    } finally {
      setJoining(false);
    }
  }, [connection]);

  const enter = useCallback((mode: "vr" | "ar") => {
    // The session request must stay inside the click: join in parallel.
    void (mode === "vr" ? store.enterVR() : store.enterAR()).catch((error: unknown) => notice(enterXrSentence(mode, error)));
    if (connection.snapshot.role !== "player") void join(localStorage.getItem("pliant-name") ?? "Guest", localStorage.getItem("pliant-color") ?? "#ff7043");
  }, [store, connection, join, notice]);

  const role = state.role;
  const canGrab = role === "player" || spectatorGrabs;
  const passthrough = xrMode === "immersive-ar";
  const alignment = useTableAlignment();
  return (
    <>
      <Canvas shadows={quality.shadows} dpr={[1, 2]} camera={{ fov: 55, near: 0.02, far: 60 }} gl={{ antialias: quality.antialias }}>
        <XR store={store}>
          {!passthrough && <color attach="background" args={["#1a1f27"]} />}
          <SceneHook />
          <FrameDriver client={client} control={frames} />
          <Lights />
          <RoomStatics passthrough={passthrough} onRealTable={alignment.aligned} />
          <TableAlignment layout={PLAYGROUND} ar={passthrough} />
          {client && <RoomContents client={client} loader={loader} players={players} />}
          {client && <BodySounds client={client} enabled />}
          {client && <XRInteraction client={client} canGrab={role === "player" && !(passthrough && alignment.aligning)} onNotice={pageNotice} />}
          {client && <MouseDrag client={client} enabled={canGrab && !xrMode && !kiosk} onDragging={setDragging} onGrabbed={onGrabbed} onNotice={pageNotice} />}
          <SpectatorCamera client={client} mode={cameraMode} dragging={dragging} onLook={onLook} />
          <WristMenu connection={state} client={client} canPlay={Boolean(client) && canGrab} onLeave={() => void store.getState().session?.end()} debug={stats} passthrough={passthrough} />
        </XR>
      </Canvas>
      {kiosk ? <KioskOverlay client={client} players={players} /> : (
        <PageOverlay
          connection={state} client={client} loader={loader} players={players.filter((p) => p.role === "player").length} loading={loading}
          stats={stats} onStats={setStats} canGrab={canGrab} device={device} hints={hints} notices={notices} onNotice={notice}
          join={{ onJoin: (n, c) => void join(n, c), busy: joining, error: joinError }}
          xr={{ vr: support.vr, ar: support.ar, onEnter: enter }} camera={{ mode: cameraMode, onMode: setCameraMode }}
        />
      )}
    </>
  );
}

function RoomContents({ client, loader, players }: { client: PliantRoomClient; loader: BakeLoader; players: ReturnType<typeof usePlayers> }) {
  const grabs = useGrabs(client);
  // Bodies join and leave (uploads); a leaving one fades out first.
  useSyncExternalStore(client.subscribeBodies, () => client.bodiesVersion);
  // A body's weights refined by the network after it was first drawn (bake-loader.ts).
  useSyncExternalStore(loader.subscribe, () => loader.version);
  const leaving = useLeavingBodies(client);
  const infos = client.room.state;
  return (
    <>
      {[...client.bodies.values()].map((body) => {
        const info = infos?.bodies?.get(body.id);
        const bake = info && loader.get(info.bake);
        return bake && info ? <SoftBodyMesh key={`${body.id}:${body.material}`} body={body} bake={bake} size={info.size} texture={info.texture} colour={info.color} leaving={leaving.includes(body.id)} /> : null;
      })}
      {[...client.characters.all.values()].map((character) => {
        const info = client.room.state?.characters?.get(character.id);
        const bake = info && loader.get(info.bake);
        return bake && info ? <CharacterMesh key={character.id} character={character} bake={bake} texture={info.texture} /> : null;
      })}
      <UploadPlaceholders client={client} />
      <Props client={client} />
      <Avatars client={client} players={players} />
      <GrabMarkers client={client} grabs={grabs} players={players} />
    </>
  );
}

function SceneHook() {
  const scene = useThree((s) => s.scene);
  const camera = useThree((s) => s.camera);
  const gl = useThree((s) => s.gl);
  useEffect(() => setDebugView(scene, camera, gl), [scene, camera, gl]);
  return null;
}
