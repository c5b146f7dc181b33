// dicesolver rooms: the page follows its room live (server-sent events); when the room
// moves on (a move, a seat taken, added or removed, the start, a rematch) the page is
// drawn again.  Without JavaScript the page's Refresh link does the same.  No inline script (the CSP).
"use strict";

(function () {
  const box = document.getElementById("room");
  if (!box || !window.EventSource) return;
  const code = box.dataset.code;
  const shown = box.dataset.stamp;

  function stampOf(s) {
    const joined = s.seats.filter((x) => x.joined).length;
    return `${s.move}:${joined}:${s.started ? 1 : 0}:${s.next || ""}`;
  }

  const source = new EventSource(`/api/rooms/${code}/events`);
  let leaving = false;
  function follow(e) {
    if (leaving) return;
    let msg;
    try { msg = JSON.parse(e.data); } catch (err) { return; }
    if (!msg.state || stampOf(msg.state) === shown) return;
    leaving = true;
    source.close();
    if (msg.kind === "rematch") window.location.replace(`/r/${code}/next`);
    else window.location.reload();
  }
  ["state", "seats", "start", "join", "move", "computer", "undo", "end", "hand", "leave", "rematch"].forEach((k) => source.addEventListener(k, follow));
  window.addEventListener("pagehide", () => source.close());
  // a move posted from this page: the page it leads to is drawn by the server
  document.addEventListener("submit", () => { leaving = true; source.close(); });
})();
