"""The campaign folder: campaign.json (rewritten whole, atomically, by the one process that
drives the campaign) and the reports beside it. Episodes keep their own journals."""

from __future__ import annotations

import os
import secrets
from datetime import datetime, timezone
from pathlib import Path

from ascendopt.campaign.records import CampaignRecord


def campaigns_dir(workspace: Path) -> Path:
    return workspace / ".ascendopt" / "campaigns"


def new_campaign_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class CampaignStore:
    def __init__(self, workspace: Path, campaign_id: str) -> None:
        self.folder = campaigns_dir(workspace) / campaign_id
        self.path = self.folder / "campaign.json"

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> CampaignRecord:
        if not self.exists():
            known = ", ".join(sorted(p.name for p in self.folder.parent.glob("*"))) or "none"
            raise KeyError(f"no campaign {self.folder.name!r} in {self.folder.parent} (known: {known})")
        return CampaignRecord.model_validate_json(self.path.read_text(encoding="utf-8"))

    def save(self, record: CampaignRecord) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f".campaign.json.{os.getpid()}.tmp")
        tmp.write_text(record.model_dump_json(indent=2), encoding="utf-8")
        tmp.replace(self.path)
