import { useMemo, useState } from "react";
import type { SearchGroup } from "../bindings/SearchGroup";
import type { SearchHit } from "../bindings/SearchHit";
import { harnessName } from "../harnesses";
import { openHit, partWords, searcher, splitHit, type SearchState } from "./search";

/** The sidebar's search box and its results, grouped by thread (Ctrl/⌘-K moves here). Model
 *  text is rendered as text nodes only; the hit is a <mark>. */
export function SearchBox() {
  const [text, setText] = useState("");
  const [state, setState] = useState<SearchState>({ kind: "idle" });
  // An answer arriving after the box is gone is dropped by React.
  const search = useMemo(() => searcher(setState), []);
  const clear = () => {
    setText("");
    search("");
  };
  return (
    <div className="search" role="search">
      <input
        type="search"
        className="search__input"
        data-role="search"
        placeholder="Search all threads (Ctrl+K)"
        aria-label="Search all threads"
        value={text}
        maxLength={65536}
        onChange={(e) => {
          setText(e.target.value);
          search(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            clear();
          }
        }}
      />
      {state.kind !== "idle" && <Results state={state} onOpen={(g, h) => void openHit(g, h)} />}
    </div>
  );
}

function Results({ state, onOpen }: { state: Exclude<SearchState, { kind: "idle" }>; onOpen: (g: SearchGroup, h: SearchHit) => void }) {
  if (state.kind === "searching") {
    return (
      <div className="search__results" data-role="search-results" data-state="searching" aria-busy="true">
        <p className="search__note">Searching…</p>
      </div>
    );
  }
  if (state.kind === "error") {
    return (
      <div className="search__results" data-role="search-results" data-state="error">
        <p className="search__note search__note--error">{state.message}</p>
      </div>
    );
  }
  const { results } = state;
  return (
    <div className="search__results" data-role="search-results" data-state="done">
      {results.groups.length === 0 && <p className="search__note">No matches</p>}
      <ul className="search__groups" role="list">
        {results.groups.map((g) => (
          <li
            key={g.thread_id ?? g.session?.path ?? g.title}
            className="search__group"
            data-thread-id={g.thread_id ?? undefined}
            data-host={g.host ?? undefined}
          >
            <div className="search__group-head" title={g.cwd ?? undefined}>
              <span className="search__title">{g.title}</span>
              <span className="search__meta">
                {harnessName(g.harness)}
                {g.host ? ` · on ${g.host}` : ""}
                {g.thread_id ? "" : " · not opened yet"}
              </span>
            </div>
            <ul role="list">
              {g.hits.map((h) => (
                <li key={`${h.turn_number}:${h.message_index}`}>
                  <Hit group={g} hit={h} onOpen={onOpen} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      {results.truncated && <p className="search__note">More matches than shown; type more words to narrow it.</p>}
    </div>
  );
}

function Hit({ group, hit, onOpen }: { group: SearchGroup; hit: SearchHit; onOpen: (g: SearchGroup, h: SearchHit) => void }) {
  const [before, match, after] = splitHit(hit.snippet, Number(hit.hit_start), Number(hit.hit_end));
  return (
    <button
      type="button"
      className="search__hit"
      data-action="open-hit"
      data-turn={Number(hit.turn_number)}
      data-part={hit.part}
      onClick={() => onOpen(group, hit)}
    >
      <span className="search__where">{partWords(hit)}</span>
      <span className="search__snippet">
        {before}
        <mark>{match}</mark>
        {after}
      </span>
    </button>
  );
}
