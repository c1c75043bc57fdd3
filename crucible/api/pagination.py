"""Page-number pagination whose parameters are checked as the schema states them.

DRF's own falls back to the default page size when ``page_size`` is not a positive whole
number; here such a value (``0``, ``abc``, the parameter given twice) answers 400 naming the
field, as every other bad parameter does. A size above ``max_page_size`` is still served at
that size, and the schema says so.
"""

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class StandardPagination(PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int | None:
        values = request.query_params.getlist(self.page_size_query_param)
        if not values:
            return self.page_size
        if len(values) > 1 or not values[0].isascii() or not values[0].isdigit():
            raise ValidationError({self.page_size_query_param: "must be one whole number from 1"})
        size = int(values[0])
        if size < 1:
            raise ValidationError({self.page_size_query_param: "must be one whole number from 1"})
        return min(size, self.max_page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = (
                    f"Number of results to return per page; above {self.max_page_size}, "
                    f"{self.max_page_size}."
                )
            elif parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters
