import { createRoot } from "react-dom/client";
import { AdminPage } from "./admin-page";

createRoot(document.getElementById("root")!).render(<AdminPage />);
