// dicesolver: small enhancements over forms that work without JavaScript.
// Steppers step by the rules' unit, dice are tapped into their text field, a build's
// progress is polled, the card prints.  No inline script anywhere (the CSP forbids it).
"use strict";

function unitNow() {
  const sel = document.querySelector("select[data-units]");
  const opt = sel && sel.options[sel.selectedIndex];
  return opt ? parseInt(opt.dataset.unit, 10) || 50 : 50;
}

function setupSteppers() {
  document.querySelectorAll(".stepper").forEach((box) => {
    box.classList.add("on");
    box.querySelectorAll("button.step").forEach((b) => {
      b.hidden = false;
      b.addEventListener("click", () => {
        const input = document.getElementById(b.dataset.stepFor);
        const unit = unitNow();
        const now = parseInt(input.value, 10) || 0;
        const next = Math.max(0, now + unit * parseInt(b.dataset.dir, 10));
        input.value = String(next - (next % unit));
      });
    });
  });
  const sel = document.querySelector("select[data-units]");
  if (sel) {
    sel.addEventListener("change", () => {
      document.querySelectorAll("input[data-stepped]").forEach((i) => { i.step = String(unitNow()); });
    });
  }
}

function facesOf(text) {
  const parts = text.split(/[\s,;]+/).filter((p) => p);
  if (parts.length === 1 && /^\d+$/.test(parts[0])) return parts[0].split("").map(Number);
  return parts.map(Number).filter((f) => f >= 1 && f <= 6);
}

function setupPads() {
  document.querySelectorAll("[data-pad-for]").forEach((pad) => {
    const input = document.getElementById(pad.dataset.padFor);
    const tray = pad.querySelector("[data-tray-for]");
    const most = parseInt(input.dataset.most, 10) || 6;
    const svgOf = (face) => pad.querySelector(`button[data-face="${face}"] svg`);
    const draw = () => {
      const faces = facesOf(input.value);
      tray.replaceChildren();
      faces.forEach((f, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.setAttribute("aria-label", `take back the ${f}`);
        b.appendChild(svgOf(f).cloneNode(true));
        b.addEventListener("click", () => {
          faces.splice(i, 1);
          input.value = faces.join(",");
          draw();
        });
        tray.appendChild(b);
      });
    };
    pad.hidden = false;
    pad.querySelectorAll("button[data-face]").forEach((b) => {
      b.addEventListener("click", () => {
        const faces = facesOf(input.value);
        if (faces.length >= most) return;
        faces.push(parseInt(b.dataset.face, 10));
        input.value = faces.join(",");
        draw();
      });
    });
    pad.querySelector("[data-clear-for]").addEventListener("click", () => {
      input.value = "";
      draw();
    });
    input.addEventListener("input", draw);
    draw();
  });
}

function setupJob() {
  const box = document.querySelector("[data-job]");
  if (!box) return;
  const bar = box.querySelector("[data-job-bar]");
  const words = { queued: "Waiting for the build before it…", running: "Building…", done: "Built.", failed: "Not built." };
  const poll = async () => {
    let job;
    try {
      const r = await fetch(`/api/jobs/${encodeURIComponent(box.dataset.job)}`, { cache: "no-store" });
      job = await r.json();
    } catch (e) {
      setTimeout(poll, 2000);
      return;
    }
    box.querySelector("[data-job-state]").textContent = words[job.state] || job.state;
    box.querySelector("[data-job-label]").textContent = job.label || "starting";
    bar.max = job.total || 1;
    bar.value = job.total ? job.done : job.state === "done" ? 1 : 0;
    box.querySelector("[data-job-count]").textContent = job.total ? `${job.done} of ${job.total}` : "";
    const err = box.querySelector("[data-job-error]");
    err.textContent = job.error || "";
    err.hidden = !job.error;
    const msg = box.querySelector("[data-job-message]");
    msg.textContent = job.message || "";
    msg.hidden = !job.message;
    box.querySelector("[data-job-back]").hidden = job.state !== "done";
    if (job.state === "queued" || job.state === "running") setTimeout(poll, 700);
  };
  poll();
}

function setupPrint() {
  document.querySelectorAll("[data-print]").forEach((b) => {
    b.hidden = false;
    b.addEventListener("click", () => window.print());
  });
}

function setupResubmit() {
  document.querySelectorAll("select[data-resubmit]").forEach((sel) => {
    sel.addEventListener("change", () => {
      window.location.href = `${window.location.pathname}?${sel.name}=${encodeURIComponent(sel.value)}`;
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  setupSteppers();
  setupPads();
  setupJob();
  setupPrint();
  setupResubmit();
});
