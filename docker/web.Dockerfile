# Web (ASGI: HTTP + websockets) and CPU worker image.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 CRUCIBLE_VAR_DIR=/var/lib/crucible
RUN apt-get update && apt-get install -y --no-install-recommends libpq5 util-linux \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY crucible ./crucible
COPY tasks_app ./tasks_app
COPY experiments ./experiments
COPY serving ./serving
COPY training ./training
COPY manage.py ./
RUN pip install --extra-index-url https://download.pytorch.org/whl/cpu -e . \
    && mkdir -p /var/lib/crucible
COPY --from=frontend /src/frontend/dist ./frontend/dist
EXPOSE 8000
CMD ["python", "-m", "crucible.serve", "--host", "0.0.0.0", "--port", "8000"]
