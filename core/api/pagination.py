"""The API's page-number pagination: DRF's, except that

- ``?page=`` with no number is refused (404 "Invalid page.", as any page that is not a page)
  instead of read as page 1, as the schema's ``page: integer`` says;
- ``?page_size=`` (1..``MAX_PAGE_SIZE``) sets the length of a page, and a size out of bounds or
  not a number is a 400 in the error shape (DRF would quietly clamp or ignore it)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from rest_framework import exceptions, pagination, serializers
from rest_framework.request import Request

MAX_PAGE_SIZE = 100
"""The longest page a client may ask for."""


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE

    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> int | str:
        if request.query_params.get(self.page_query_param) == "":
            return ""  # Django's paginator refuses it: DRF answers 404
        return super().get_page_number(request, paginator)

    def get_page_size(self, request: Request) -> int | None:
        name = self.page_size_query_param
        assert name is not None
        if name not in request.query_params:
            return self.page_size
        field = serializers.IntegerField(min_value=1, max_value=self.max_page_size)
        try:
            return int(field.run_validation(request.query_params[name]))
        except exceptions.ValidationError as exc:
            raise exceptions.ValidationError({name: exc.detail}) from None

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
                parameter["description"] = (
                    f"Results per page, 1..{self.max_page_size} (default {self.page_size}); "
                    "beyond: 400."
                )
        return parameters
