// ipc.ts for the actions' unit tests: every call a mock, the real error class (errors.ts tests
// `instanceof` it). A test file says `vi.mock("../ipc", () => import("../testing/ipcMock"))`.
import { vi } from "vitest";

const actual = await vi.importActual<typeof import("../ipc")>("../ipc");

export const IpcError = actual.IpcError;
export const inApp = () => true;

export const threads = vi.fn();
export const show = vi.fn();
export const create = vi.fn();
export const discover = vi.fn();
export const importSession = vi.fn();
export const rename = vi.fn();
export const archive = vi.fn();
export const exportBranch = vi.fn();
export const startTurn = vi.fn();
export const interrupt = vi.fn();
export const answerApproval = vi.fn();
export const answerQuestion = vi.fn();
export const pendingApprovals = vi.fn();
export const sessionGrants = vi.fn();
export const revokeGrant = vi.fn();
export const fork = vi.fn();
export const openWindow = vi.fn();
export const moveTabToNewWindow = vi.fn();
export const setWindowTabs = vi.fn();
export const setWindowTitle = vi.fn();
export const windowInit = vi.fn();
export const appInfo = vi.fn();
export const getSettings = vi.fn();
export const saveSettings = vi.fn();
export const doctor = vi.fn();
export const onWindowAssign = vi.fn();
export const onHostEvent = vi.fn();
export const onHostLagged = vi.fn();
export const onSettingsChanged = vi.fn();
export const onActivateThread = vi.fn();
export const setMode = vi.fn();
export const files = vi.fn();
export const changes = vi.fn();
export const bringBack = vi.fn();
export const worktreeLoss = vi.fn();
export const removeWorktree = vi.fn();
export const folderTrust = vi.fn(async () => ({ root: "/", config: [], trusted: null, changed: [] }));
export const setFolderTrust = vi.fn();
export const trustedFolders = vi.fn(async () => []);
export const revokeFolderTrust = vi.fn();
export const setupCommand = vi.fn(async (): Promise<string | null> => null);
export const setSetupCommand = vi.fn(async (_folder: string, command: string | null) => command);
export const doctorAgain = vi.fn();
export const chooseHarnessPath = vi.fn();
export const pickFile = vi.fn(async (): Promise<string | null> => null);
export const pickFolder = vi.fn(async (): Promise<string | null> => null);
export const openExternal = vi.fn(async () => {});
