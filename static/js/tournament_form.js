/* The tournament form: the rounds only for a Swiss tournament, the duration only for an arena,
 * the password only for an
 * invitation. Without this script every field shows and the server refuses what does not go
 * together. */
function main() {
  const form = document.getElementById("tournament-form");
  if (!form) return;
  const format = form.querySelector("#id_format");
  const rounds = form.querySelector("#id_rounds");
  const duration = form.querySelector("#id_duration_minutes");
  const password = form.querySelector("#id_password");

  function fieldOf(input) {
    return input ? input.closest(".field") : null;
  }

  function update() {
    const roundsField = fieldOf(rounds);
    if (roundsField && format) roundsField.hidden = format.value !== "swiss";
    const durationField = fieldOf(duration);
    if (durationField && format) durationField.hidden = format.value !== "arena";
    const passwordField = fieldOf(password);
    const invite = form.querySelector('input[name="visibility"][value="invite"]');
    if (passwordField && invite) passwordField.hidden = !invite.checked;
  }

  form.addEventListener("change", update);
  update();
}

main();
