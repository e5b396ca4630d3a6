"""The API's page-number pagination: DRF's, except that ``?page=`` with no number is refused
(404 "Invalid page.", as any page that is not a page) instead of read as page 1, as the
schema's ``page: integer`` says."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from rest_framework import pagination
from rest_framework.request import Request


class PageNumberPagination(pagination.PageNumberPagination):
    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> int | str:
        if request.query_params.get(self.page_query_param) == "":
            return ""  # Django's paginator refuses it: DRF answers 404
        return super().get_page_number(request, paginator)
