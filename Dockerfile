# The image every Python service of docker-compose.yml runs (web, workers, beat).
FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY siesta_site siesta_site
COPY games games
COPY ratings ratings
COPY tournaments tournaments
RUN pip install .
COPY . .
RUN DJANGO_PRODUCTION=1 DJANGO_SECRET_KEY=build DATABASE_URL=sqlite:////tmp/build.db \
    REDIS_URL=redis://unused python manage.py collectstatic --noinput -v 0
# A web process is healthy while /health/ answers 200 (deploy/healthcheck.py, no curl needed). The
# workers and beat run this image too, without a web server: docker-compose.yml turns it off there.
HEALTHCHECK --interval=10s --timeout=6s --start-period=20s --retries=3 \
    CMD ["python", "deploy/healthcheck.py"]
