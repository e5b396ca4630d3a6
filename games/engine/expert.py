"""The expert player: a turn chosen by what it leads to once the others have replied.

For each candidate turn (its best scoring cores, each filled up plainly, and the best few filled
up to spoil what the next player could score) the expert plays the line: the candidate, each
other player's best reply (greedy, the way the medium bot plays), then its own best turn after
them. A line is valued by the expert's lead over the best other seat at its end, plus a share of
its own best turn then (what the candidate sets up) and a point for each roof the candidate
places (a roof claims siestas for good), or by the result when the game ends on the way (near
the end, a line where the expert's own next turn can end the game in first place counts as won).
The candidates are first screened with the next player's reply only; the best few are then tried
again with a piece on a cell of that reply (spoiling what they open up), and the best screened
are followed to the expert's next turn, two at least and more while work is left. The candidate
whose line is worth most is played.

Why it can look at many candidates: a reply is searched *locally*. Each player's scoring
components are enumerated once, on the position before the candidate; after a candidate only
the placements linked to its cells are enumerated afresh, and the old components are re-scored
by playing them (a few placements each). Every reply found is still played on the real board,
so its points are exact; what a local search can miss is a component far from the candidate
that the candidate changed (rare: linked placements share a filled run or a crossing).

Work is counted in placements tried (``ExpertSettings.work``), not in time, so a turn is the
same for a seed whatever the machine's load; the default takes about half a second of one idle
core (``python -m games.engine bench`` reports it).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from games.engine.errors import IllegalMoveError
from games.engine.notation import Cell, Piece, Turn
from games.engine.position import Position
from games.engine.scoring import Step, has_scoring_turn
from games.engine.search import _Searcher, _undominated
from games.engine.variants import EMPTY, ROOF0, SHADOW, SUN

WIN = 10_000.0
"""The value of a line that ends the game with the expert alone in first place (plus its
lead); a shared first place is worth half, a loss its negative."""

Components = dict[frozenset[Step], tuple[int, tuple[Step, ...]]]


@dataclass(frozen=True)
class ExpertSettings:
    """How much the expert looks at. The defaults take about 0.5 s of one idle core."""

    work: int = 50_000
    """Placements tried per turn (the search's unit of work), over every search of the turn."""
    width: int = 16
    """Scoring cores of its own turned into candidates, best points first."""
    min_width: int = 3
    """Candidates looked at whatever the work spent."""
    plain_first: int = 2
    """Candidates filled up plainly looked at before the first spoiling one."""
    spoilers: int = 2
    """Short cores (fewer than three placements, best first) also filled up to spoil."""
    spoil_cells: int = 4
    """Cells of the next player's best cores tried as spoilers, best core first."""
    refute: int = 3
    """Best screened candidates (cores of fewer than three placements) tried again with a piece
    on a cell of the reply found after them (to spoil what they open up)."""
    refute_codes: int = 2
    """Pieces tried on each such cell (roof, sun, shadow: the first that are legal)."""
    refute_share: float = 0.15
    """Share of the work kept for those."""
    deep: int = 2
    """Candidates (the best after the next player's reply) followed to the expert's next turn."""
    deep_share: float = 0.3
    """Share of the work kept for following those."""
    deep_more: int = 6
    """Candidates followed to the expert's next turn while work is left (past ``deep``)."""
    deep_more_at: float = 0.85
    """Share of the work past which no candidate beyond ``deep`` is followed (a line costs
    about a tenth of the budget)."""
    follow_weight: float = 0.5
    """Weight of the expert's own best turn at the end of a line (what the candidate sets up)."""
    end_check: int = 1
    """Whether a line whose next turn of the expert can end the game in first place counts as
    won (near the end)."""
    roof_weight: float = 1.0
    """Worth of each roof the candidate places, besides its points (0 to ignore them). A roof on
    the board claims the siestas through it, and every shadow later added to them scores for
    the expert; a roof in hand scores nothing. Measured rather than derived (docs/performance.md,
    "Why roofs count"): with it the expert was first alone in 71% of 400 two-player games against
    the hard bot, without it in 65% of 100; holding roofs back instead dropped it to 33.5%."""


@dataclass
class _Work:
    budget: int
    spent: int = 0

    @property
    def exhausted(self) -> bool:
        return self.spent >= self.budget


class _Counted(_Searcher):
    """The exact search on the player to move, counting its placements and optionally given its
    components (enumerated once, reused)."""

    def __init__(self, pos: Position, work: _Work, given: Components | None = None) -> None:
        super().__init__(pos)
        self.work = work
        self.given = given

    def try_put(self, code: int, cell: Cell) -> bool:
        self.work.spent += 1
        return super().try_put(code, cell)

    def components(self) -> Components:
        if self.given is None:
            self.given = super().components()
        return self.given


class _Local(_Counted):
    """A reply search after a candidate: components enumerated only from ``seeds`` (the cells
    linked to what was placed since ``known`` were found), plus ``known`` re-scored."""

    def __init__(
        self,
        pos: Position,
        work: _Work,
        known: list[tuple[int, tuple[Step, ...]]],
        seeds: list[Cell],
    ) -> None:
        super().__init__(pos, work)
        self.known = known
        self.seeds = seeds

    def seed_from(self, placed: list[Step]) -> None:
        """Seed the search at the first empty cells past the runs through ``placed`` (a
        crossing's far cells are left to the re-scored components: as good, and cheaper)."""
        crossing, self.crossing = self.crossing, False
        try:
            self.seeds = sorted(self.linked_cells(placed))
        finally:
            self.crossing = crossing

    def components(self) -> Components:
        if self.given is not None:
            return self.given
        found = self.components_from([c for c in self.seeds if self.pos.cells[c] == EMPTY])
        for _gain, order in self.known:
            key = frozenset(order)
            if key not in found and (rescored := self.play_steps(order)) is not None:
                found[key] = (rescored, order)
        self.given = found
        return found


@dataclass
class Line:
    """A candidate turn, the replies that follow it and what the line is worth to the expert."""

    turn: Turn
    points: int
    """What the candidate scores for the expert."""
    value: float = 0.0
    over: bool = False
    """The game ends on the way: the value is the result."""
    replies: list[tuple[int, int]] = field(default_factory=list)
    """(seat, points for that seat) of each reply, in order."""
    threat: tuple[Step, ...] = ()
    """The placements of the next player's reply (what a spoiling piece would stop)."""
    follow: int = 0
    """The expert's best points on its next turn (0 when the game ended)."""
    deep: bool = False
    """Followed to the expert's next turn (else to the next player's reply only)."""
    roofs: int = 0
    """The roofs the candidate places (each worth ``ExpertSettings.roof_weight``)."""


def _roofs_in(turn: Turn) -> int:
    return sum(1 for placement in turn.placements if placement.piece is Piece.ROOF)


def _near_end(pos: Position) -> bool:
    """Whether a turn may end the game: few suns, shadows or roofs of some player are left."""
    return pos.suns <= 3 or pos.shadows <= 3 or min(pos.roofs) <= 3


def _ending_cores(searcher: _Counted, comps: Components) -> list[tuple[int, tuple[Step, ...]]]:
    """The scoring components whose placements use up the suns, the shadows or the mover's
    roofs (so their last placement ends the game)."""
    pos = searcher.pos
    seat = searcher.seat
    result = []
    for gain, order in comps.values():
        if gain <= 0:
            continue
        codes = [code for code, _cell in order]
        if (
            codes.count(SUN) >= pos.suns
            or codes.count(SHADOW) >= pos.shadows
            or codes.count(searcher.roof) >= pos.roofs[seat]
        ):
            result.append((gain, order))
    return result


def _margin(scores: list[int], seat: int) -> int:
    return scores[seat - 1] - max(s for i, s in enumerate(scores, 1) if i != seat)


def _terminal(scores: list[int], seat: int) -> float:
    lead = _margin(scores, seat)
    if lead > 0:
        return WIN + lead
    if lead == 0:
        return WIN / 2
    return -WIN + lead


class Expert:
    """One turn's search for the player to move in ``position`` (left as it was)."""

    def __init__(
        self, position: Position, rng: random.Random, settings: ExpertSettings | None = None
    ) -> None:
        if position.to_move is None:
            raise ValueError("the game is over")
        self.settings = settings or ExpertSettings()
        self.rng = rng
        self.pos = position.copy()
        self.seat: int = position.to_move
        self.work = _Work(self.settings.work)
        self.known: dict[int, list[tuple[int, tuple[Step, ...]]]] = {}

    # -- what each player can score now ------------------------------------------------------

    def _components_of(self, seat: int) -> Components:
        """``seat``'s scoring components on the root position, as if it were to move."""
        pos = self.pos
        saved = pos.to_move
        pos.to_move = seat
        try:
            searcher = _Counted(pos, self.work)
            with pos.tracking_only(seat):
                comps = searcher.components()
        finally:
            pos.to_move = saved
        self.known[seat] = _undominated(comps)
        return comps

    def _threat_cells(self, seat: int) -> list[Cell]:
        """The cells of ``seat``'s best scoring cores on the root position, best first."""
        pos = self.pos
        saved = pos.to_move
        pos.to_move = seat
        try:
            searcher = _Counted(pos, self.work, {frozenset(o): (g, o) for g, o in self.known[seat]})
            with pos.tracking_only(seat):
                cores = searcher.top_cores(2)
        finally:
            pos.to_move = saved
        cells: list[Cell] = []
        for _gain, core in cores:
            cells.extend(cell for _code, cell in core if cell not in cells)
        return cells

    # -- candidates ------------------------------------------------------------------------------

    def candidates(self) -> list[tuple[int, tuple[Step, ...], Turn]]:
        """(points, core, turn) for the best cores of the expert, each filled up plainly."""
        pos = self.pos
        comps = self._components_of(self.seat)
        searcher = _Counted(pos, self.work, comps)
        with pos.tracking_only(self.seat):
            cores = searcher.top_cores(self.settings.width)
        if _near_end(pos):
            # Turns that end the game come first: the line of one is its result.
            ending = sorted(_ending_cores(searcher, comps), key=lambda item: -item[0])
            cores = ending[: self.settings.width] + cores
        result = []
        for gain, core in cores:
            turn = searcher.complete(core, self.rng)
            if turn is not None:
                result.append((gain, core, turn))
        return result

    def spoilers(
        self,
        core: tuple[Step, ...],
        threats: list[Cell],
        codes: tuple[int, ...] = (SUN, SHADOW, -1),
        per_cell: int = 1,
    ) -> list[tuple[tuple[Step, ...], Turn]]:
        """(core, turn): ``core`` and a piece on a cell of ``threats`` (the first ``per_cell``
        of ``codes`` that are legal there, -1 for the expert's roof), filled up."""
        if len(core) >= 3:
            return []
        searcher = _Counted(self.pos, self.work)
        roof = ROOF0 + self.seat - 1
        taken = {cell for _code, cell in core}
        turns = []
        for cell in threats:
            if cell in taken:
                continue
            tried = 0
            for code in (roof if code < 0 else code for code in codes):
                spoiled = (*core, (code, cell))
                turn = searcher.complete(spoiled, self.rng)
                if turn is not None:
                    turns.append((spoiled, turn))
                    tried += 1
                    if tried >= per_cell:
                        break
        return turns

    # -- lines -----------------------------------------------------------------------------------

    def evaluate(self, turn: Turn, *, deep: bool) -> Line | None:
        """Play the line of ``turn`` (None if it is not a legal scoring turn) and value it:
        with ``deep`` every other player's reply and the expert's own best after them, else the
        next player's reply only."""
        pos = self.pos
        try:
            points = pos.play(turn, check_end=False)
        except IllegalMoveError:
            return None
        line = Line(turn, points[self.seat - 1], deep=deep, roofs=_roofs_in(turn))
        try:
            if line.points < 1:
                return None
            if pos.over:
                line.value, line.over = _terminal(pos.scores, self.seat), True
                return line
            self._follow(line, turn, deep)
        finally:
            pos.undo()
        return line

    def _follow(self, line: Line, turn: Turn, deep: bool) -> None:
        """The others' best replies (the next one's only unless ``deep``), then with ``deep``
        the expert's own best; the value of where it leads."""
        pos = self.pos
        # What changed since the components were enumerated: the searches start there.
        placed: list[Step] = [(pos.cells[p.cell], p.cell) for p in turn.placements]
        put: list[Cell] = []
        saved = pos.to_move
        start = pos.worths()
        over = False
        try:
            while True:
                seat = pos.to_move
                assert seat is not None
                searcher = _Local(pos, self.work, self.known[seat], [])
                searcher.seed_from(placed)
                with pos.tracking_only(seat):
                    gain, cores = searcher.best_cores()
                if seat == self.seat:
                    line.follow = gain
                    if self.settings.end_check and _near_end(pos):
                        # Its own turn may end the game in first place: the line is won.
                        winning = self._winning_end(searcher, start)
                        if winning is not None:
                            put.extend(winning[1])
                            over = True
                    break
                if gain <= 0 or not cores:
                    if not has_scoring_turn(pos):
                        over = True
                        break
                    gain, cores = 0, []
                first = not line.replies
                if first:
                    line.threat = tuple(cores[0]) if cores else ()
                if _near_end(pos):
                    winning = self._winning_end(searcher, start)
                    if winning is not None:
                        gain, cells = winning
                        put.extend(cells)
                        if first:
                            line.threat = tuple((pos.cells[cell], cell) for cell in cells)
                        cores, over = [()], True
                for code, cell in cores[0] if cores else ():
                    if searcher.try_put(code, cell):
                        put.append(cell)
                        placed.append((code, cell))
                        if searcher.ends(code):
                            over = True
                line.replies.append((seat, gain))
                if over or not deep:
                    break
                pos.to_move = seat % pos.players + 1
            scores = [s + w - b for s, w, b in zip(pos.scores, pos.worths(), start, strict=True)]
            if over:
                line.value, line.over = _terminal(scores, self.seat), True
            else:
                line.value = (
                    _margin(scores, self.seat)
                    + self.settings.follow_weight * line.follow
                    + self.settings.roof_weight * line.roofs
                )
        finally:
            for cell in reversed(put):
                pos._remove(cell)
            pos.to_move = saved

    def _winning_end(
        self, searcher: _Counted, start: tuple[int, ...]
    ) -> tuple[int, list[Cell]] | None:
        """A turn ending the game with the player to move alone in first place, if the searcher's
        components have one (that player's choice, however greedy): its points and its cells,
        left on the board (the caller takes them back with the rest of the line)."""
        pos = self.pos
        seat = searcher.seat + 1
        ending = _ending_cores(searcher, searcher.components())
        for gain, order in sorted(ending, key=lambda item: -item[0]):
            done: list[Cell] = []
            for code, cell in order:
                if not searcher.try_put(code, cell):
                    break
                done.append(cell)
            if len(done) == len(order) and searcher.ends(order[-1][0]):
                scores = [
                    s + w - b for s, w, b in zip(pos.scores, pos.worths(), start, strict=True)
                ]
                if _margin(scores, seat) > 0:
                    return gain, done
            for cell in reversed(done):
                pos._remove(cell)
        return None

    def _order(
        self, candidates: list[tuple[int, tuple[Step, ...], Turn]]
    ) -> list[tuple[tuple[Step, ...], Turn]]:
        """(core, turn) in the order they are looked at: the best plainly filled ones first,
        interleaved with the best short cores filled up to spoil the next player's best."""
        settings = self.settings
        following = self.seat % self.pos.players + 1
        threats = self._threat_cells(following)[: settings.spoil_cells]
        spoiling: list[tuple[tuple[Step, ...], Turn]] = []
        short = [core for _gain, core, _turn in candidates if len(core) < 3]
        for core in short[: settings.spoilers]:
            spoiling.extend(self.spoilers(core, threats))
        plain = [(core, turn) for _gain, core, turn in candidates]
        head = settings.plain_first
        ordered = plain[:head]
        rest = plain[head:]
        while spoiling or rest:
            if spoiling:
                ordered.append(spoiling.pop(0))
            if rest:
                ordered.append(rest.pop(0))
        return ordered

    def _refute(
        self,
        screened: list[Line],
        cores: dict[str, tuple[Step, ...]],
        seen: set[str],
        reserve: float,
    ) -> None:
        """Screen the best candidates again with a piece on a cell of the reply found after
        them (what they open up, spoiled), while the work allows; added to ``screened``."""
        settings = self.settings
        best = sorted(screened, key=lambda line: -line.value)[: settings.refute]
        for line in best:
            core = cores.get(str(line.turn), ())
            if line.over or not line.threat or len(core) >= 3:
                continue
            cells = [cell for _code, cell in line.threat]
            for spoiled, turn in self.spoilers(
                core, cells, (-1, SUN, SHADOW), settings.refute_codes
            ):
                if self.work.spent >= self.work.budget - reserve:
                    return
                if str(turn) in seen:
                    continue
                seen.add(str(turn))
                refuted = self.evaluate(turn, deep=False)
                if refuted is not None:
                    screened.append(refuted)
                    cores[str(turn)] = spoiled

    def prepare(self) -> None:
        """Enumerate every player's components (what ``evaluate`` needs, without choosing)."""
        for seat in range(1, self.pos.players + 1):
            self._components_of(seat)

    def choose(self) -> Line | None:
        """The line of the turn to play (None when the expert has no scoring turn)."""
        settings = self.settings
        for seat in range(1, self.pos.players + 1):
            if seat != self.seat:
                self._components_of(seat)
        candidates = self.candidates()
        if not candidates:
            return None
        screened: list[Line] = []
        seen: set[str] = set()
        cores: dict[str, tuple[Step, ...]] = {}
        reserve = settings.work * settings.deep_share
        refuting = reserve + settings.work * settings.refute_share
        for core, turn in self._order(candidates):
            if (
                len(screened) >= settings.min_width
                and self.work.spent >= self.work.budget - refuting
            ):
                break
            if str(turn) in seen:
                continue
            seen.add(str(turn))
            line = self.evaluate(turn, deep=False)
            if line is not None:
                screened.append(line)
                cores[str(turn)] = core
        if not screened:
            return None
        self._refute(screened, cores, seen, reserve)
        # Stable: on equal values the earlier candidate (more points now) comes first.
        screened.sort(key=lambda line: -line.value)
        deepened: list[Line] = []
        more_until = self.work.budget * settings.deep_more_at
        for index, line in enumerate(screened[: max(settings.deep, settings.deep_more)]):
            if (deepened and self.work.exhausted) or (
                index >= settings.deep and self.work.spent >= more_until
            ):
                break
            if line.over:
                deepened.append(line)
                continue
            deep = self.evaluate(line.turn, deep=True)
            if deep is not None:
                deepened.append(deep)
        return max(deepened, key=lambda line: line.value) if deepened else screened[0]


def expert_turn(
    position: Position, rng: random.Random, settings: ExpertSettings | None = None
) -> Turn | None:
    """The expert's turn in ``position`` (None when it has no scoring turn); see the module."""
    if position.to_move is None:
        return None
    if position.is_empty:
        from games.engine.search import best_turn

        return best_turn(position).turn
    line = Expert(position, rng, settings).choose()
    return line.turn if line is not None else None


@dataclass(frozen=True)
class Review:
    """A played turn against the expert's view: both turns' lines, valued alike."""

    played: Line
    best: Line
    """The expert's choice (the played turn's own line when the expert would play it)."""
    loss: float
    """How much less the played line is worth than the expert's (0 when it is as good)."""
    reason: str
    """Why, as a code: ``ends_lost`` (it ends the game without first place), ``misses_win``
    (another turn ends it in first place), ``opens_reply`` (it leaves the next player a bigger
    turn), ``fewer_points`` (it scores less now), ``less_setup`` (it leaves its player less for
    their next turn), ``fewer_roofs`` (it claims fewer siestas with roofs), ``as_good`` (no
    loss)."""
    reason_points: int
    """The points the reason is about (the reply left open, the points fewer, ...)."""


def review(
    position: Position,
    turn: Turn | str,
    rng: random.Random | None = None,
    settings: ExpertSettings | None = None,
) -> Review | None:
    """The expert's view of ``turn`` played in ``position``: its line after the others' best
    replies against the line of the turn the expert would play; None when the position is over
    or the turn is not a legal scoring turn."""
    if position.to_move is None or position.is_empty:
        return None
    turn = Turn.parse(turn) if isinstance(turn, str) else turn
    expert = Expert(position, rng or random.Random(0), settings)
    best = expert.choose()
    if best is None:
        return None
    if not best.over and not best.deep:
        best = expert.evaluate(best.turn, deep=True) or best
    played = best if str(best.turn) == str(turn) else expert.evaluate(turn, deep=True)
    if played is None:
        return None
    if played.value >= best.value:
        return Review(played, played, 0.0, "as_good", 0)
    loss = best.value - played.value
    if played.over and played.value < WIN / 2:
        return Review(played, best, loss, "ends_lost", played.points)
    if best.over and best.value > WIN / 2:
        return Review(played, best, loss, "misses_win", best.points)
    reply_played = played.replies[0][1] if played.replies else 0
    reply_best = best.replies[0][1] if best.replies else 0
    causes = [
        (reply_played - reply_best, "opens_reply", reply_played),
        (best.points - played.points, "fewer_points", best.points - played.points),
        (best.follow - played.follow, "less_setup", best.follow - played.follow),
        (
            (best.roofs - played.roofs) * expert.settings.roof_weight,
            "fewer_roofs",
            best.roofs - played.roofs,
        ),
    ]
    size, reason, points = max(causes, key=lambda cause: cause[0])
    if size <= 0:
        reason, points = "fewer_points", max(0, best.points - played.points)
    return Review(played, best, loss, reason, points)


PUZZLE_CHECK = ExpertSettings(work=160_000, width=20, deep=4)
"""The deeper search that checks a 'best turn' puzzle: 160,000 placements, over three times the
bot's work."""

PUZZLE_MARGIN = 3.0
"""How far the expert's turn must lead, after the replies, both the turn played and the turn of
most points now, for a 'best turn' puzzle."""


def line_value(
    position: Position, turn: Turn | str, settings: ExpertSettings = PUZZLE_CHECK
) -> Line | None:
    """The line of ``turn`` followed to its player's next turn, valued as the expert values it
    (deterministic: the same position, turn and settings give the same value)."""
    if position.to_move is None:
        return None
    turn = Turn.parse(turn) if isinstance(turn, str) else turn
    expert = Expert(position, random.Random(0), settings)
    expert.prepare()
    return expert.evaluate(turn, deep=True)


@dataclass(frozen=True)
class BestTurnPuzzle:
    """A position where the expert's turn clearly leads both the turn played and the turn of
    most points now, after the others' best replies (checked with the deeper search)."""

    turn: Turn
    points: int
    """What the expert's turn scores now."""
    value: float
    """Its line's value (``line_value``): a solution is a turn whose line is worth as much."""
    over_played: float
    over_greedy: float


def best_turn_puzzle(
    position: Position,
    played: Turn | str,
    settings: ExpertSettings = PUZZLE_CHECK,
    margin: float = PUZZLE_MARGIN,
) -> BestTurnPuzzle | None:
    """The 'best turn' puzzle of ``position`` (where ``played`` was played), or None when the
    expert's choice does not lead by ``margin`` (or a line ends the game: those are the exact
    puzzles' end-of-game theme)."""
    if position.to_move is None or position.is_empty:
        return None
    from games.engine.search import best_turn

    played = Turn.parse(played) if isinstance(played, str) else played
    expert = Expert(position, random.Random(0), settings)
    best = expert.choose()  # enumerates every player's components, as line_value does
    greedy = best_turn(position).turn
    if best is None or greedy is None or str(greedy) == str(best.turn):
        return None
    if not best.deep:
        best = expert.evaluate(best.turn, deep=True) or best
    lines = [best, expert.evaluate(greedy, deep=True), expert.evaluate(played, deep=True)]
    if any(line is None or line.over for line in lines):
        return None
    _best, greedy_line, played_line = (line for line in lines if line is not None)
    over_played = best.value - played_line.value
    over_greedy = best.value - greedy_line.value
    if min(over_played, over_greedy) < margin:
        return None
    return BestTurnPuzzle(best.turn, best.points, best.value, over_played, over_greedy)
