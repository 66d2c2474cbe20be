//! What a gateway serves of its upstreams' skills (those kept by `skills.rs` whose pins hold),
//! and the skills extension it declares for them.

use rmcp::model::InitializeResult;

use crate::skill_files::UpstreamSkills;
use crate::spec::{OnDrift, PinKind};
use crate::upstream::Upstreams;
use crate::upstream::pins::PinStatus;

impl Upstreams {
    /// Whether an upstream's skills are pinned.
    fn serves_skills(&self) -> bool {
        self.links
            .iter()
            .any(|link| link.spec.pins.iter().any(|pin| pin.kind == PinKind::Skill))
    }

    /// `info` declaring the skills extension (with `directoryRead`, and the resources
    /// capability it requires) where an upstream's skills are pinned.
    pub(super) fn advertise_skills(&self, mut info: InitializeResult) -> InitializeResult {
        if !self.serves_skills() {
            return info;
        }
        crate::spec::skills::declare_extension(&mut info.capabilities);
        info
    }

    /// What the gateway serves of its upstreams' skills now: each kept skill whose pin
    /// matches is listed (and, where `on_drift = "warn"`, one that drifted but was read); a
    /// drifted one, or one not checked yet, is withheld (its gets and reads refused), and
    /// stays listed as it was last kept only where `on_drift = "refuse"`.
    pub fn skills(&self) -> UpstreamSkills {
        let mut skills = UpstreamSkills::default();
        for link in &self.links {
            let on_drift = link.spec.on_drift;
            for (index, pin) in link.spec.pins.iter().enumerate() {
                if pin.kind != PinKind::Skill {
                    continue;
                }
                let (status, kept) = (link.pin(index), link.kept(index));
                let served =
                    kept.is_some() && (status == PinStatus::Matches || on_drift == OnDrift::Warn);
                if !served {
                    let checked = status != PinStatus::Unchecked;
                    skills.withheld.push((pin.remote_name.to_owned(), checked));
                }
                if let Some(kept) = kept
                    && (served || on_drift == OnDrift::Refuse)
                {
                    skills.listed.push(kept);
                }
            }
        }
        skills
    }
}
