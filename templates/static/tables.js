// Wide tables scroll inside their own box (style.css draws shadows at the edge that hides
// more columns). This adds a line under each box that overflows, saying so and how many
// columns there are, and keeps it current as the window is resized. Without script the
// shadows remain the cue.
(function () {
  'use strict';
  var boxes = Array.prototype.slice.call(document.querySelectorAll('.table-scroll'));
  if (!boxes.length) return;
  var hints = boxes.map(function (box) {
    var hint = document.createElement('p');
    hint.className = 'scroll-hint';
    var table = box.querySelector('table');
    // A body row holds every column; a two-node table's first header row does not (its
    // node groups span several).
    var body = table && table.tBodies[0];
    var row = (body && body.rows[0]) || (table && table.rows[0]);
    var columns = row ? row.cells.length : 0;
    hint.textContent = 'Scroll the table sideways to see all ' + columns + ' columns.';
    box.parentNode.insertBefore(hint, box.nextSibling);
    return hint;
  });
  function update() {
    boxes.forEach(function (box, i) {
      hints[i].classList.toggle('is-shown', box.scrollWidth > box.clientWidth + 1);
    });
  }
  update();
  window.addEventListener('resize', update);
})();
