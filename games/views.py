from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@require_GET
def rules(request: HttpRequest) -> HttpResponse:
    return render(request, "rules.html")


@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    """Create an account with a username and password, sign the new user in and go home."""
    form: UserCreationForm = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        messages.success(request, _("Welcome, %(username)s!") % {"username": user.get_username()})
        return redirect("home")
    return render(request, "registration/register.html", {"form": form})
