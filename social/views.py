"""Pages of playing together: notices, their preferences, the unsubscribe link, and the
challenge forms of a profile and of the leaderboard's bots (without JavaScript; the scripts use
the API)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from core import throttling
from core.errors import ServiceError
from social.emails import (
    unsubscribe_confirm_token,
    unsubscribe_confirmed_user_id,
    unsubscribe_expired,
    unsubscribe_user_id,
)
from social.forms import BotChallengeForm, ChallengeForm, PreferencesForm
from social.services import challenges as challenge_services
from social.services import notices as notice_services
from social.services import preferences as preference_services


def _user(request: HttpRequest) -> Any:
    """The signed-in user of a ``login_required`` view."""
    assert isinstance(request.user, User)
    return request.user


@login_required
@require_http_methods(["GET"])
def notifications(request: HttpRequest) -> HttpResponse:
    """The latest notices; the unread ones are marked, then become read."""
    user = _user(request)
    notices = [
        {**notice_services.notification_payload(n), "created": n.created_at}
        for n in notice_services.notifications_latest(user=user)
    ]
    challenges = [
        challenge_services.challenge_payload(c)
        for c in challenge_services.challenges_open(user=user)
        if c.challenged_id == user.pk
    ]
    notice_services.notifications_mark_read(user=user)
    return render(
        request,
        "social/notifications.html",
        {"notices": notices, "challenges": challenges, "unread_notifications": 0},
    )


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    """The notice preferences and the e-mail address, with whether it is confirmed."""
    user = _user(request)
    current = preference_services.preferences_of(user.pk)
    initial = {
        "email": user.email,
        "email_turns": current.email_turns,
        "email_challenges": current.email_challenges,
        "chat_muted": current.chat_muted,
    }
    form = PreferencesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        email = data.pop("email")
        preference_services.preferences_update(user=user, language=get_language() or "", **data)
        messages.success(request, _("Your preferences are saved."))
        _confirmation_told(request, *preference_services.email_address_set(user=user, email=email))
        return redirect("notification_preferences")
    confirmed = preference_services.email_is_confirmed(user)
    return render(request, "social/preferences.html", {"form": form, "confirmed": confirmed})


def _confirmation_told(request: HttpRequest, sent: bool, wait: float | None) -> None:
    """Tell whether the confirmation link went out, or how long to wait before asking again."""
    if wait is not None:
        messages.error(request, throttling.wait_words(wait))
    elif sent:
        messages.info(
            request,
            _("We sent a confirmation link to %(email)s.") % {"email": _user(request).email},
        )


@login_required
@require_POST
def email_confirm_resend(request: HttpRequest) -> HttpResponse:
    """ "Send the link again", throttled (``email_confirm`` and ``mail_address``)."""
    _confirmation_told(request, *preference_services.email_confirmation_send(user=_user(request)))
    return redirect("notification_preferences")


@require_http_methods(["GET", "POST"])
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a confirmation e-mail: a button (GET, so that a mail scanner fetching the
    link confirms nothing) that confirms the address (POST)."""
    try:
        if request.method == "POST":
            user, done = preference_services.email_address_confirm(token=token), True
        else:
            user, done = preference_services.email_confirmation_user(token=token), False
    except ServiceError as exc:
        raise Http404(exc.message) from None
    return render(request, "social/email_confirm.html", {"done": done, "who": user})


@csrf_exempt  # the signed token is the proof; mail clients' one-click POST carries no CSRF token
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The link of every e-mail: a button (GET) that stops them (POST, also one-click).

    A link older than ``SIESTA_UNSUBSCRIBE_DAYS`` no longer acts by itself (one-click POSTs of
    it are refused): its page asks to confirm, with a form carrying a proof good for an hour,
    once."""
    user_id = unsubscribe_user_id(token)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    if user is None:
        raise Http404(_("This unsubscribe link is not valid."))
    expired = unsubscribe_expired(token)
    done = False
    if request.method == "POST":
        proof = request.POST.get("confirm", "")
        if not expired or unsubscribe_confirmed_user_id(proof) == user.pk:
            preference_services.preferences_update(
                user=user, email_turns=False, email_challenges=False
            )
            done = True
    context = {
        "done": done,
        "who": user,
        "expired": expired,
        "days": settings.SIESTA_UNSUBSCRIBE_DAYS,
        "confirm": unsubscribe_confirm_token(user.pk) if expired and not done else "",
    }
    return render(request, "social/unsubscribe.html", context)


@login_required
@require_POST
def challenge_create(request: HttpRequest, username: str) -> HttpResponse:
    form = ChallengeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the settings of the challenge."))
        return redirect("profile", username)
    wait = throttling.challenge_wait(request, _user(request))
    if wait is not None:
        messages.error(request, throttling.wait_words(wait))
        return redirect("profile", username)
    try:
        challenge_services.challenge_create(
            challenger=_user(request), username=username, **form.service_arguments()
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Challenge sent to %(name)s.") % {"name": username})
    return redirect("profile", username)


@login_required
@require_POST
def challenge_bot(request: HttpRequest) -> HttpResponse:
    """The leaderboard's "Challenge a bot": the game starts at once, and the page goes to it."""
    form = BotChallengeForm(request.POST)
    back = redirect("leaderboard")
    if not form.is_valid():
        messages.error(request, _("Choose the settings of the challenge."))
        return back
    try:
        game = challenge_services.challenge_bot(challenger=_user(request), **form.cleaned_data)
    except ServiceError as exc:
        messages.error(request, exc.message)
        return back
    return redirect("game", game_id=game.pk)


@login_required
@require_POST
def challenge_answer(request: HttpRequest, challenge_id: int, answer: str) -> HttpResponse:
    try:
        if answer == "accept":
            challenge = challenge_services.challenge_accept(
                challenge_id=challenge_id, user=_user(request)
            )
            return redirect("game", game_id=challenge.game_id)
        if answer == "decline":
            challenge_services.challenge_decline(challenge_id=challenge_id, user=_user(request))
        else:
            challenge_services.challenge_cancel(challenge_id=challenge_id, user=_user(request))
    except ServiceError as exc:
        messages.error(request, exc.message)
    return redirect("notifications")
