/*
 * Post-game analysis for the replay page (placeholder: owned by the analysis work).
 *
 * The section #analysis (templates/games/_analysis.html) carries data-url with
 * /api/games/<id>/analysis/. Use the hook replay.js documents at its top:
 * the "replay:ready" / "replay:step" events and window.siestaReplay
 * (showMarks, drawBoardOverlay, goTo).
 */
