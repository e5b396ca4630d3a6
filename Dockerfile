# The image every Python service of docker-compose.yml runs (web, workers, beat, migrate).
# Installs exactly the serving lock (requirements/base.txt, hashes checked), then the project
# without dependencies; runs as an unprivileged user. What the build may see: .dockerignore (no
# .venv, .git, databases, var/ with its secret key, .env).
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app
RUN useradd --system --create-home --uid 10001 siesta
COPY requirements/base.txt requirements/base.txt
RUN pip install --require-hashes -r requirements/base.txt
COPY . .
RUN pip install --no-deps . \
    && rm -rf build *.egg-info
# Static files are collected at build time with a throwaway key (production settings refuse a
# short or placeholder one); the key is not kept in the image.
RUN DJANGO_PRODUCTION=1 DATABASE_URL=sqlite:////tmp/build.db REDIS_URL=redis://unused \
    DJANGO_ALLOWED_HOSTS=build SIESTA_SITE_URL=http://build \
    DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    python manage.py collectstatic --noinput -v 0 \
    && rm -f /tmp/build.db
USER siesta
# A web process is healthy while /health/ answers 200 (deploy/healthcheck.py, no curl needed). The
# workers and beat run this image too, without a web server: docker-compose.yml turns it off there.
HEALTHCHECK --interval=10s --timeout=6s --start-period=20s --retries=3 \
    CMD ["python", "deploy/healthcheck.py"]
CMD ["daphne", "-v", "0", "-b", "0.0.0.0", "-p", "8000", "--proxy-headers", "siesta_site.asgi:application"]
