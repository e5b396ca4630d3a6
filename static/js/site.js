// Every page: the language menu switches as soon as a language is chosen. (An event listener here,
// not an onchange attribute: the Content-Security-Policy refuses inline handlers.)
(function () {
  "use strict";
  var select = document.getElementById("language-select");
  if (select && select.form) {
    select.addEventListener("change", function () {
      select.form.submit();
    });
  }
})();
