# cafebot: docker build -t cafebot . && docker run -e DISCORD_TOKEN=… -v cafebot-data:/data cafebot
# (without a token: the playground, e.g. -p 8080:8080 -e CAFEBOT_PLAYGROUND_HOST=0.0.0.0)
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CAFEBOT_DATABASE_PATH=/data/cafebot.sqlite3

RUN useradd --create-home --uid 10001 cafebot \
    && mkdir -p /data && chown cafebot:cafebot /data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY bot ./bot
COPY emulator ./emulator
RUN pip install --no-cache-dir .

USER cafebot
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
