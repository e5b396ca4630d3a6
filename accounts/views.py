"""Pages of accounts: registration and the sign-in forms (throttled like the API's), the
password reset form (throttled, and mailing confirmed addresses only), the account page with
the personal access tokens of bots and tools, and a person's profile (``/users/<name>/``).

The other account pages (logout, password change) are Django's own (``accounts/urls.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.views import (
    LoginView,
    PasswordChangeView,
    PasswordResetConfirmView,
    PasswordResetView,
)
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from accounts import selectors, services
from accounts.forms import (
    NewPasswordForm,
    PasswordChangeSiteForm,
    PersonalTokenForm,
    SignInForm,
    SignUpForm,
)
from core import links, throttling
from games.selectors import games_hidden_from
from ratings import elo
from ratings import selectors as rating_selectors
from social.services.preferences import email_is_confirmed

NEW_TOKEN_KEY = "accounts_new_token"

HISTORY_PAGE_SIZE = 50
"""Rating history rows per page of a profile."""
"""Where the secret of a token just created waits for the page after the redirect (once)."""


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    """Create an account with a username and password, sign the new user in and go home.

    Accounts created are throttled per client address, with the API's register limit."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST":
        address = throttling.client_address(request)
        wait = throttling.REGISTER.hit(address)
        if wait is not None:
            context = {"form": SignUpForm(), "too_many": throttling.wait_words(wait)}
            page = render(request, "registration/register.html", context, status=429)
            return _retry_after(page, wait)
        if form.is_valid():
            try:
                with transaction.atomic():
                    user = form.save()
            except IntegrityError:  # the same name, in another case, was taken meanwhile
                form.add_error("username", str(services.USERNAME_TAKEN))
            else:
                login(request, user)
                messages.success(
                    request, _("Welcome, %(username)s!") % {"username": user.get_username()}
                )
                return redirect("home")
        throttling.REGISTER.give_back(address)  # only accounts created count
    return render(request, "registration/register.html", {"form": form})


class SiteLoginView(LoginView):
    """Django's login form, throttled like ``POST /api/auth/token/``: attempts per client address
    and failures per username share the API's limits. Its words are the site's (``SignInForm``)."""

    form_class = SignInForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = throttling.sign_in_wait(request, request.POST.get("username"))
        if wait is None:
            return super().post(request, *args, **kwargs)
        context = self.get_context_data(
            form=self.get_form_class()(request), too_many=throttling.wait_words(wait)
        )
        page = self.render_to_response(context, status=429)
        return _retry_after(page, wait)


class ConfirmedAddressResetForm(PasswordResetForm):
    """Django's reset form, mailing only accounts whose address is confirmed: a link that sets
    the password must not go to an address nobody proved is theirs (a typo, or a stranger's)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].label = _("E-mail address")  # the site's word, not Django's

    def get_users(self, email: str) -> Iterator[Any]:
        return (user for user in super().get_users(email) if email_is_confirmed(user))

    def save(self, *args: Any, **kwargs: Any) -> None:
        """The link's origin is ``SIESTA_SITE_URL`` (core.links), never the request's ``Host``
        header or scheme, which the sender of the form chooses."""
        domain, https = links.site_domain()
        kwargs.update(domain_override=domain, use_https=https)
        super().save(*args, **kwargs)


class SitePasswordResetView(PasswordResetView):
    """Django's reset page, throttled per client address and per e-mail address asked for
    (whether an account has it or not, so the refusal tells nothing about accounts). The e-mail
    and its subject are the site's templates (registration/password_reset_*): its own words."""

    form_class = ConfirmedAddressResetForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = throttling.password_reset_wait(request, request.POST.get("email"))
        if wait is None:
            return super().post(request, *args, **kwargs)
        form = self.get_form()
        form.is_valid()
        form.add_error("email", throttling.wait_words(wait))
        page = self.render_to_response(self.get_context_data(form=form), status=429)
        return _retry_after(page, wait)


class SitePasswordResetConfirmView(PasswordResetConfirmView):
    """Django's new-password page of a reset link, in the site's words."""

    form_class = NewPasswordForm


class SitePasswordChangeView(PasswordChangeView):
    """Django's password change page, in the site's words."""

    form_class = PasswordChangeSiteForm


def sign_in_throttled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Another sign-in form (the admin's) under the same limits, answering a plain 429."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            wait = throttling.sign_in_wait(request, request.POST.get("username"))
            if wait is not None:
                page = HttpResponse(
                    throttling.wait_words(wait),
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                return _retry_after(page, wait)
        return view(request, *args, **kwargs)

    return wrapped


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """The account page: links to the account's settings, and the personal access tokens (listed,
    created, revoked). A new token's secret is shown once, on the page after its creation."""
    user = _signed_in(request)
    form = PersonalTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created = services.personal_token_create(user=user, **form.service_arguments())
        except services.PersonalTokenError as exc:
            form.add_error(None, exc.message)
        else:
            request.session[NEW_TOKEN_KEY] = {"id": created.token.pk, "secret": created.secret}
            return redirect("account")
    context = {
        "form": form,
        "tokens": selectors.personal_tokens_of(user=user),
        "new_token": request.session.pop(NEW_TOKEN_KEY, None),
    }
    return render(request, "registration/account.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["POST"])
def personal_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        services.personal_token_revoke(user=_signed_in(request), token_id=token_id)
    except services.PersonalTokenError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The token is revoked: it no longer works."))
    return redirect("account")


@require_GET
def profile(request: HttpRequest, username: str) -> HttpResponse:
    """A person's page: their rating in each pool with its chart and history, their recent games
    and tournaments, and (for someone else) the Challenge button."""
    try:
        player = rating_selectors.user_get(username=username)
    except get_user_model().DoesNotExist:
        raise Http404(_("There is no player %(username)s.") % {"username": username}) from None
    standings = rating_selectors.user_standings(user=player)
    charts = [
        chart
        for standing in standings
        if (chart := rating_selectors.rating_chart(user=player, pool=standing.pool)) is not None
    ]
    history = rating_selectors.rating_history(user=player).reverse()
    history_page = Paginator(history, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    # A private game the reader may not see: its rating change, without its players or link.
    hidden = games_hidden_from((c.game_id for c in history_page.object_list), request.user)
    changes = [
        {
            "change": change,
            "hidden": change.game_id in hidden,
            "opponents": [] if change.game_id in hidden else rating_selectors.opponents_of(change),
        }
        for change in history_page.object_list
    ]
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "standings": standings,
            "hints": rating_selectors.hint_share(user=player),
            "charts": charts,
            "history_page": history_page,
            "changes": changes,
            "games": selectors.user_recent_games(
                username=player.get_username(), viewer=request.user
            ),
            "provisional_games": elo.PROVISIONAL_GAMES,
        },
    )


def _signed_in(request: HttpRequest) -> AbstractBaseUser:
    """The user of a ``login_required`` view."""
    return cast(AbstractBaseUser, request.user)


def _retry_after(response: HttpResponse, wait: float) -> HttpResponse:
    response["Retry-After"] = throttling.retry_after(wait)
    return response
