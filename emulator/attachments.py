"""Message attachments: uploads, the v10 keep/add list, attachment:// references, serving files."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from .channels import ChannelsAndThreads
from .core import ATTACHMENT_SIZE_LIMIT, Upload
from .validation import FormErrors, Json, iter_components


class Attachments(ChannelsAndThreads):
    def _make_attachments(
        self,
        request: web.Request,
        specs: Any,
        uploads: list[Upload],
        channel_id: int,
        existing: Sequence[Json] = (),
    ) -> tuple[list[Json], dict[str, bytes]]:
        by_field = {u.field: u for u in uploads}
        out: list[Json] = []
        files: dict[str, bytes] = {}
        existing_by_id = {str(a["id"]): a for a in existing}
        used: set[str] = set()
        for spec in specs or []:
            sid = str(spec.get("id"))
            if sid in existing_by_id:
                out.append(existing_by_id[sid])
                continue
            upload = by_field.get(f"files[{sid}]")
            if upload is None:
                errors = FormErrors()
                errors.add(f"attachments.{sid}", "ATTACHMENT_NOT_FOUND", "Attachment not found")
                raise self._invalid_form(request, errors)
            used.add(upload.field)
            out.append(self._attachment_obj(spec, upload, channel_id, files))
        for upload in uploads:  # files without attachment specs still count (legacy form)
            if upload.field not in used and upload.field.startswith("file"):
                out.append(self._attachment_obj({}, upload, channel_id, files))
        total = sum(len(b) for b in files.values())
        if total > ATTACHMENT_SIZE_LIMIT:
            raise self._fail(
                request, 413, 40005, "Request entity too large", violation="attachment_too_large"
            )
        return out, files

    def _attachment_obj(
        self, spec: Json, upload: Upload, channel_id: int, files: dict[str, bytes]
    ) -> Json:
        aid = self.snowflake()
        filename = spec.get("filename") or upload.filename
        files[filename] = upload.data
        url = f"{self.base_url}/attachments/{channel_id}/{aid}/{filename}"
        att: Json = {
            "id": str(aid),
            "filename": filename,
            "size": len(upload.data),
            "url": url,
            "proxy_url": url,
            "content_type": upload.content_type or "application/octet-stream",
        }
        if spec.get("description"):
            att["description"] = spec["description"]
        return att

    def _resolve_attachment_refs(
        self, embeds: Any, components: Any, attachments: Sequence[Json], errors: FormErrors
    ) -> tuple[list[Json], list[str]]:
        """``attachment://name`` in an embed becomes that attachment's URL; naming no attachment
        of the message, the image is silently dropped (as Discord does; listed in the second
        value). In components V2 media it must name an attachment (400 otherwise)."""
        prefix = "attachment://"
        by_name = {str(a["filename"]): a for a in attachments}
        unresolved: list[str] = []
        out: list[Json] = []
        for embed in embeds if isinstance(embeds, list) else []:
            if not isinstance(embed, dict):
                out.append(embed)
                continue
            embed = copy.deepcopy(embed)
            refs = [(key, "url", "proxy_url") for key in ("image", "thumbnail")]
            refs += [(key, "icon_url", "proxy_icon_url") for key in ("author", "footer")]
            for key, url_key, proxy_key in refs:
                part = embed.get(key)
                url = part.get(url_key) if isinstance(part, dict) else None
                if not isinstance(part, dict) or not isinstance(url, str):
                    continue
                if not url.startswith(prefix):
                    continue
                att = by_name.get(url[len(prefix) :])
                if att is not None:
                    part[url_key] = att["url"]
                    part[proxy_key] = att["proxy_url"]
                    continue
                unresolved.append(url)
                if key in ("image", "thumbnail"):
                    del embed[key]
                else:
                    part.pop(url_key)
            out.append(embed)
        comps = components if isinstance(components, list) else []
        for comp in iter_components(comps):
            ctype = comp.get("type")
            media: list[Any] = []
            if ctype == 11:
                media.append(comp.get("media"))
            elif ctype == 12:
                media += [i.get("media") for i in comp.get("items") or [] if isinstance(i, dict)]
            elif ctype == 13:
                media.append(comp.get("file"))
            for item in media:
                url = item.get("url") if isinstance(item, dict) else None
                name = url[len(prefix) :] if isinstance(url, str) else ""
                if isinstance(url, str) and url.startswith(prefix) and name not in by_name:
                    errors.add(
                        "components",
                        "UNFURLED_MEDIA_ITEM_ATTACHMENT_NOT_FOUND",
                        f"{url} names no attachment of the message ({sorted(by_name)})",
                    )
        return out, unresolved

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        aid = int(request.match_info["aid"])
        for msg in self._messages.values():
            for att in msg.attachments:
                if int(att["id"]) == aid and att["filename"] in msg.files:
                    return web.Response(
                        body=msg.files[att["filename"]],
                        content_type=att.get("content_type") or "application/octet-stream",
                    )
        return web.Response(status=404)
