// The occupancy stepper: the page lists every step (readable without JavaScript); this
// script shows one step at a time, with Previous/Next buttons and Left/Right arrow keys,
// and announces each step through the figure's live status line.
(function () {
  "use strict";

  function setUp(figure) {
    var steps = Array.prototype.slice.call(figure.querySelectorAll(".stepper-step"));
    var marks = Array.prototype.slice.call(figure.querySelectorAll(".stepper-progress li"));
    var controls = figure.querySelector(".stepper-controls");
    var progress = figure.querySelector(".stepper-progress");
    var prev = figure.querySelector(".stepper-prev");
    var next = figure.querySelector(".stepper-next");
    var status = figure.querySelector(".stepper-status");
    if (steps.length === 0 || !controls || !prev || !next || !status) {
      return;
    }
    var current = 0;

    function show(index) {
      current = Math.max(0, Math.min(steps.length - 1, index));
      steps.forEach(function (step, i) {
        var here = i === current;
        step.hidden = !here;
        step.classList.toggle("is-current", here);
        if (here) {
          step.setAttribute("aria-current", "step");
        } else {
          step.removeAttribute("aria-current");
        }
      });
      marks.forEach(function (mark, i) {
        var here = i === current;
        mark.classList.toggle("is-current", here);
        mark.classList.toggle("is-done", i < current);
        if (here) {
          mark.setAttribute("aria-current", "step");
        } else {
          mark.removeAttribute("aria-current");
        }
      });
      // aria-disabled rather than disabled: the button keeps focus at either end.
      prev.setAttribute("aria-disabled", String(current === 0));
      next.setAttribute("aria-disabled", String(current === steps.length - 1));
      status.textContent = steps[current].getAttribute("data-status") || "";
    }

    prev.addEventListener("click", function () { show(current - 1); });
    next.addEventListener("click", function () { show(current + 1); });
    figure.addEventListener("keydown", function (event) {
      var moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: steps.length - 1 };
      if (event.altKey || event.ctrlKey || event.metaKey || !(event.key in moves)) {
        return;
      }
      event.preventDefault();
      show(moves[event.key]);
    });

    controls.hidden = false;
    if (progress) {
      progress.hidden = false;
    }
    figure.classList.add("is-stepping");
    show(0);
  }

  function start() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-stepper]"), setUp);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
