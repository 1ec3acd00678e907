// Settings ▸ "Trusted folders": every folder-trust answer (docs/architecture.md "Folder trust"),
// each with Revoke, which forgets it: the next thread started there asks again.
import { useCallback, useEffect, useState } from "react";
import type { TrustDecision } from "../bindings/TrustDecision";
import * as ipc from "../ipc";

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function TrustedFoldersSection() {
  const [decisions, setDecisions] = useState<TrustDecision[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      setDecisions(await ipc.trustedFolders());
      setError(null);
    } catch (err) {
      setError(errorMessage(err));
    }
  }, []);
  useEffect(() => {
    // `load` sets state only after its read returns; the rule cannot see past the call.
    // eslint-disable-next-line react-hooks/set-state-in-effect -- asynchronous, see above
    void load();
  }, [load]);

  const revoke = async (folder: string) => {
    try {
      await ipc.revokeFolderTrust(folder);
    } catch (err) {
      setError(errorMessage(err));
    }
    await load();
  };

  return (
    <section className="settings-section" data-settings-section="trusted-folders">
      <h3>Trusted folders</h3>
      <p className="settings-hint">
        Your answers to "Trust this folder?". Revoke forgets one: the next thread started there asks again.
      </p>
      {error && (
        <p className="settings-hint settings-hint--warn" data-trusted-folders-error>
          {error}
        </p>
      )}
      {decisions && decisions.length === 0 && <p className="settings-hint">No folder has an answer yet.</p>}
      {decisions && decisions.length > 0 && (
        <ul className="trusted-folders">
          {decisions.map((d) => (
            <li key={d.folder} data-trusted-folder={d.folder}>
              <code>{d.folder}</code> <span className="muted">{d.trusted ? "trusted" : "not trusted"}</span>{" "}
              <button
                type="button"
                className="button"
                data-action="revoke-trust"
                onClick={() => void revoke(d.folder)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
